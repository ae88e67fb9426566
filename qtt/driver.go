package qtt

import (
	"encoding/json"

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
	// last Drain, in order, or why they could not be read back.
	Drain() ([]Record, error)
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
// both drivers of qtt/driver have it.
type TopicReader interface {
	ReadAll(topic string) ([]Record, error)
}

// Settler is a Driver whose queries process what a statement wrote after
// the statement returns (over a broker). ksqlDB's SQL test runner feeds
// TopologyTestDriver synchronously, so each INSERT's record is processed
// before the next statement runs; the SQL test files' runner calls Settle
// after each INSERT, which returns once every query has caught up with
// its inputs, so that a join sees records in the file's order even where
// they share a timestamp. A driver that processes an INSERT before
// Execute returns (the in-memory engine) needs none.
type Settler interface {
	Settle() error
}

// TopicInfo is one topic that exists after the variant ran.
type TopicInfo struct {
	Name       string
	Partitions int32
}

// NewDriver makes a fresh driver for one variant.
type NewDriver func(DriverConfig) (Driver, error)

// DriverConfig is what a new driver is given for one variant.
type DriverConfig struct {
	// Props are the test's properties.
	Props map[string]string
	// Topics are the topics the test declares, their formats resolved.
	Topics []Topic
	// Broker runs the variant end to end against a broker (--broker);
	// false: on the in-memory engine.
	Broker bool
}

// Topic is a topic a test declares, as a driver creates it and registers
// its schemas.
type Topic struct {
	Name       string
	Partitions int32 // 0 when the test gives none: one
	// KeyFormat and ValueFormat are the formats of the schemas ("": the
	// driver guesses from the schema).
	KeyFormat, ValueFormat string
	KeySchema, ValueSchema json.RawMessage
	// KeySchemaID and ValueSchemaID are the ids the schemas are
	// registered with (nil: the registry's next).
	KeySchemaID, ValueSchemaID *int
	// KeyRefs and ValueRefs are schemas the key or value schema imports,
	// registered after it under their names (ksqlDB's harness order).
	KeyRefs, ValueRefs []SchemaReferenceSpec
}
