package qtt

import (
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// Driver runs one test variant in isolation: fresh catalog, topics, state.
// The runner calls it from one goroutine at a time.
type Driver interface {
	// Execute runs one statement's text; an error is the statement's
	// failure (a *sqlerr.Error or other).
	Execute(stmt string) error
	// Produce feeds one input record synchronously through every query
	// reading the topic (and any repartition hops).
	Produce(r Record) error
	// Drain returns the records written to non-internal topics since the
	// last Drain, in order.
	Drain() []Record
	// Sources returns the catalog, for post.sources checks and for
	// serializing test records.
	Sources() []SourceInfo
	// Topics returns the existing topics, for post.topics checks.
	Topics() []TopicInfo
	Close() error
}

// Record is a Kafka record as the driver consumes and produces it.
type Record struct {
	Topic string
	// Partition is -1 on input: choose by key like Kafka's default
	// partitioner.
	Partition int32
	Key       []byte
	Value     []byte // nil: tombstone
	Timestamp int64
	Headers   []Header
}

// Header is one record header; a nil Value is a null header value.
type Header struct {
	Key   string
	Value []byte
}

// SourceInfo is one catalog entry (stream or table).
type SourceInfo struct {
	Name                   string
	Kind                   string // STREAM or TABLE
	Topic                  string
	Schema                 *types.Schema
	KeyFormat, ValueFormat format.Spec
	Windowed               bool
	WindowType             string // TUMBLING, HOPPING or SESSION
	WindowSize             int64  // milliseconds; 0 for SESSION
	IsSink                 bool   // written by a persistent query
	// TimestampColumn is the TIMESTAMP column ("" when ROWTIME is the
	// record timestamp); TimestampFormat its TIMESTAMP_FORMAT.
	TimestampColumn, TimestampFormat string
}

// TopicReader is a Driver that can read back every record of a topic, in
// the order it was written (partition by partition): records produced by
// INSERT statements and by queries alike, once the queries have caught
// up. ksqlDB's SQL test files (qtt/sqltest) need it for ASSERT VALUES;
// the in-memory driver of qtt/driver has it (--broker's does not yet).
type TopicReader interface {
	ReadAll(topic string) ([]Record, error)
}

// TopicInfo is one topic that exists after the variant ran.
type TopicInfo struct {
	Name       string
	Partitions int32
}

// NewDriver makes a fresh driver for one variant; props are the test's
// properties (plus "qtt.mode" = "broker" under --broker, and "qtt.topics"
// when the test declares topics: a JSON array of {"name","partitions"}).
type NewDriver func(props map[string]string) (Driver, error)
