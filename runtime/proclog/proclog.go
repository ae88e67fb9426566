package proclog

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
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

// Stream is the stream over the processing-log topic.
const Stream = "KSQL_PROCESSING_LOG"

// Log writes entries for skipped and dropped records to the topic
// `<service-id>ksql_processing_log` (readable as the stream
// KSQL_PROCESSING_LOG). Writes are asynchronous on Kafka: tasks never
// block on the log; an entry its full queue refuses, or whose write
// fails, is counted lost for its query (Lost) and reported: once the
// log writes again, an entry of type ENTRIES_LOST says how many of the
// query's entries were lost since the last such report (lost.go).
type Log struct {
	cluster exec.Cluster
	logger  *slog.Logger
	topic   string
	ch      chan queued
	wg      sync.WaitGroup
	total   atomic.Int64
	sync    bool
	losses  losses
}

// queued is an entry waiting for the writer, with the query it is for.
type queued struct {
	query string
	rec   *physical.OutRecord
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

// New returns the processing log writing to topic on cluster (in the
// caller's goroutine on a synchronous cluster, the in-memory one).
func New(cluster exec.Cluster, logger *slog.Logger, topic string) *Log {
	return &Log{cluster: cluster, logger: logger, topic: topic, sync: cluster.Synchronous(), ch: make(chan queued, 4096)}
}

// Open creates the topic if needed and starts the writer.
func (l *Log) Open(ctx context.Context) error {
	if err := l.cluster.CreateTopic(ctx, exec.TopicSpec{Name: l.topic, Partitions: 1, Replicas: 1}); err != nil {
		return err
	}
	if !l.sync {
		l.wg.Add(1)
		go l.run()
	}
	return nil
}

// Topic is the processing log's topic.
func (l *Log) Topic() string { return l.topic }

// Source is the stream KSQL_PROCESSING_LOG over the topic, for the
// catalog.
func (l *Log) Source() *planner.Source {
	return &planner.Source{Name: Stream, Kind: ast.Stream, Schema: processingLogSchema(),
		Topic: l.topic, KeyFormat: format.Spec{Name: "KAFKA"}, ValueFormat: format.Spec{Name: "JSON"}, Partitions: 1,
		SQL: "CREATE STREAM KSQL_PROCESSING_LOG (...) WITH (KAFKA_TOPIC='" + l.topic + "', VALUE_FORMAT='JSON');"}
}

// run writes the queued entries, and the reports of lost ones once a
// write succeeds again.
func (l *Log) run() {
	defer l.wg.Done()
	for q := range l.ch {
		if l.write(q.query, q.rec) {
			l.reportLost()
		}
	}
}

// write produces one entry; a failed write counts it lost.
func (l *Log) write(query string, r *physical.OutRecord) bool {
	if err := l.cluster.Produce(context.Background(), r); err != nil {
		l.lose(query, "its write failed: "+err.Error())
		return false
	}
	return true
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

// LogFor writes an entry on behalf of query id.
func (l *Log) LogFor(id string, e *physical.LogEntry) {
	l.total.Add(1)
	now := time.Now().UnixMilli()
	b := entryValue(id, e, now)
	l.logger.Warn("record skipped", "query", id, "kind", e.Kind.String(), "topic", e.Topic,
		"partition", e.Partition, "offset", e.Offset, "err", cutText(e.Message, maxLoggedMessage))
	r := &physical.OutRecord{Topic: l.topic, Partition: 0, Value: b, Timestamp: now}
	if l.sync {
		if l.write(id, r) {
			l.reportLost()
		}
		return
	}
	select {
	case l.ch <- queued{id, r}:
	default:
		l.lose(id, "the processing log's queue was full")
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
func (l *Log) Log(e *physical.LogEntry) { l.LogFor("transient", e) }

// Close writes what is queued and stops the writer.
func (l *Log) Close() {
	if !l.sync {
		close(l.ch)
		l.wg.Wait()
	}
}
