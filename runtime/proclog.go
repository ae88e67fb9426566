package runtime

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// ProcessingLogStream is the stream over the processing-log topic.
const ProcessingLogStream = "KSQL_PROCESSING_LOG"

// processingLog writes entries for skipped and dropped records to the
// topic `<service-id>ksql_processing_log` (readable as the stream
// KSQL_PROCESSING_LOG). Writes are asynchronous on Kafka: tasks never
// block on the log; if its buffer is full the entry is counted as lost.
type processingLog struct {
	e     *Engine
	topic string
	ch    chan *physical.OutRecord
	wg    sync.WaitGroup
	lost  atomic.Int64
	total atomic.Int64
	sync  bool
}

// processingLogSchema is the value schema of KSQL_PROCESSING_LOG.
func processingLogSchema() *types.Schema {
	msg := types.StructOf(
		types.Field{Name: "TYPE", Type: types.StringType},
		types.Field{Name: "QUERYID", Type: types.StringType},
		types.Field{Name: "RECORDTOPIC", Type: types.StringType},
		types.Field{Name: "RECORDPARTITION", Type: types.IntegerType},
		types.Field{Name: "RECORDOFFSET", Type: types.BigintType},
		types.Field{Name: "TARGET", Type: types.StringType},
		types.Field{Name: "ERRORMESSAGE", Type: types.StringType},
		types.Field{Name: "RECORDB64", Type: types.StringType},
	)
	return &types.Schema{Columns: []types.Column{
		{Name: "LOGGER", Type: types.StringType},
		{Name: "LEVEL", Type: types.StringType},
		{Name: "TIME", Type: types.BigintType},
		{Name: "MESSAGE", Type: msg},
	}}
}

func newProcessingLog(e *Engine, topic string) *processingLog {
	return &processingLog{e: e, topic: topic, sync: e.cluster.Synchronous(), ch: make(chan *physical.OutRecord, 4096)}
}

func (l *processingLog) open(ctx context.Context) error {
	if err := l.e.cluster.CreateTopic(ctx, exec.TopicSpec{Name: l.topic, Partitions: 1, Replicas: 1}); err != nil {
		return err
	}
	l.e.cat.Put(&planner.Source{Name: ProcessingLogStream, Kind: ast.Stream, Schema: processingLogSchema(),
		Topic: l.topic, KeyFormat: format.Spec{Name: "KAFKA"}, ValueFormat: format.Spec{Name: "JSON"}, Partitions: 1,
		SQL: "CREATE STREAM KSQL_PROCESSING_LOG (...) WITH (KAFKA_TOPIC='" + l.topic + "', VALUE_FORMAT='JSON');"})
	if !l.sync {
		l.wg.Add(1)
		go l.run()
	}
	return nil
}

func (l *processingLog) run() {
	defer l.wg.Done()
	for r := range l.ch {
		if err := l.e.cluster.Produce(context.Background(), r); err != nil {
			l.e.logger.Warn("processing log write failed", "err", err)
		}
	}
}

// logEntry is the JSON value of a processing-log record.
type logEntry struct {
	Logger  string     `json:"LOGGER"`
	Level   string     `json:"LEVEL"`
	Time    int64      `json:"TIME"`
	Message logMessage `json:"MESSAGE"`
}

type logMessage struct {
	Type         string `json:"TYPE"`
	QueryID      string `json:"QUERYID"`
	Topic        string `json:"RECORDTOPIC"`
	Partition    int32  `json:"RECORDPARTITION"`
	Offset       int64  `json:"RECORDOFFSET"`
	Target       string `json:"TARGET,omitempty"`
	ErrorMessage string `json:"ERRORMESSAGE"`
	RecordB64    string `json:"RECORDB64,omitempty"`
}

// maxLoggedRecord and maxLoggedMessage bound what an entry copies of the
// bad record and of its error message. An entry must fit the broker's
// message.max.bytes (1 MiB by default) or it is refused and the failure
// goes unrecorded; base64 grows the record by a third, so a record above
// ≈ 750 kB used to lose its entry. 64 KiB of the record is plenty to see
// what was wrong with it, and the entry keeps the topic, partition and
// offset to fetch the whole record from.
const (
	maxLoggedRecord  = 64 << 10
	maxLoggedMessage = 16 << 10
)

// logFor writes an entry on behalf of query id.
func (l *processingLog) logFor(id string, e *physical.LogEntry) {
	l.total.Add(1)
	now := nowMillis()
	b := entryValue(id, e, now)
	l.e.logger.Warn("record skipped", "query", id, "kind", e.Kind.String(), "topic", e.Topic,
		"partition", e.Partition, "offset", e.Offset, "err", cutText(e.Message, maxLoggedMessage))
	r := &physical.OutRecord{Topic: l.topic, Partition: 0, Value: b, Timestamp: now}
	if l.sync {
		_ = l.e.cluster.Produce(context.Background(), r)
		return
	}
	select {
	case l.ch <- r:
	default:
		l.lost.Add(1)
	}
}

// entryValue is the JSON value of the entry for e: the record is cut to
// its first maxLoggedRecord bytes and the message to maxLoggedMessage,
// and the message says when the record was cut and how long it was.
func entryValue(id string, e *physical.LogEntry, now int64) []byte {
	msg := cutText(e.Message, maxLoggedMessage)
	rec := e.Record
	if len(rec) > maxLoggedRecord {
		rec = rec[:maxLoggedRecord]
		msg += fmt.Sprintf(" (RECORDB64 holds the first %d of the record's %d bytes; the whole record is at %s partition %d offset %d)",
			maxLoggedRecord, len(e.Record), e.Topic, e.Partition, e.Offset)
	}
	v := logEntry{Logger: "processing." + id, Level: "ERROR", Time: now, Message: logMessage{
		Type: e.Kind.String(), QueryID: id, Topic: e.Topic, Partition: e.Partition, Offset: e.Offset,
		Target: e.Target, ErrorMessage: msg}}
	if rec != nil {
		v.Message.RecordB64 = base64.StdEncoding.EncodeToString(rec)
	}
	b, _ := json.Marshal(v) // strings and numbers only: cannot fail
	return b
}

// cutText is s cut to at most max bytes at a character boundary, with a
// note of its full length when it was cut.
func cutText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (cut, %d bytes in all)", s[:cut], len(s))
}

// Log implements physical.ProcessingLog for transient queries.
func (l *processingLog) Log(e *physical.LogEntry) { l.logFor("transient", e) }

func (l *processingLog) close() {
	if !l.sync {
		close(l.ch)
		l.wg.Wait()
	}
}

func nowMillis() int64 { return time.Now().UnixMilli() }

// ProcessingLogTopic is the topic processing-log entries go to
// (<service id>ksql_processing_log).
func (e *Engine) ProcessingLogTopic() string { return e.procLog.topic }
