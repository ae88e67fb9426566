package runtime

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
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
	_, isMem := e.cluster.(*memCluster)
	return &processingLog{e: e, topic: topic, sync: isMem, ch: make(chan *physical.OutRecord, 4096)}
}

func (l *processingLog) open(ctx context.Context) error {
	if err := l.e.cluster.createTopic(ctx, topicSpec{name: l.topic, partitions: 1, replicas: 1}); err != nil {
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
		if err := l.e.cluster.produce(context.Background(), r); err != nil {
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

// logFor writes an entry on behalf of query id.
func (l *processingLog) logFor(id string, e *physical.LogEntry) {
	l.total.Add(1)
	now := nowMillis()
	v := logEntry{Logger: "processing." + id, Level: "ERROR", Time: now, Message: logMessage{
		Type: e.Kind.String(), QueryID: id, Topic: e.Topic, Partition: e.Partition, Offset: e.Offset,
		Target: e.Target, ErrorMessage: e.Message}}
	if e.Record != nil {
		v.Message.RecordB64 = base64.StdEncoding.EncodeToString(e.Record)
	}
	b, _ := json.Marshal(v)
	l.e.logger.Warn("record skipped", "query", id, "kind", e.Kind.String(), "topic", e.Topic,
		"partition", e.Partition, "offset", e.Offset, "err", e.Message)
	r := &physical.OutRecord{Topic: l.topic, Partition: 0, Value: b, Timestamp: now}
	if l.sync {
		_ = l.e.cluster.produce(context.Background(), r)
		return
	}
	select {
	case l.ch <- r:
	default:
		l.lost.Add(1)
	}
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
