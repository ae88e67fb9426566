package ast

// AssertSchema is ASSERT [NOT EXISTS] SCHEMA [SUBJECT 's'] [ID n]
// [TIMEOUT n unit]: the schema registry holds (or, with NOT EXISTS, does
// not hold) a schema under Subject, with ID, or both. At least one of
// them is set.
type AssertSchema struct {
	Base
	NotExists bool
	Subject   string // "" when absent
	ID        int    // 0 when absent (registry ids start at 1)
	// TimeoutMs is how long to wait for the assertion to hold; -1 when
	// absent (ksql.assert.schema.default.timeout.ms applies).
	TimeoutMs int64
}

// AssertTopic is ASSERT [NOT EXISTS] TOPIC name [WITH (…)] [TIMEOUT n
// unit]: the Kafka topic exists (with the PARTITIONS and REPLICAS the
// WITH clause gives) or, with NOT EXISTS, does not.
type AssertTopic struct {
	Base
	NotExists bool
	Topic     string // as written: topic names are case-sensitive
	Props     Properties
	// TimeoutMs is how long to wait for the assertion to hold; -1 when
	// absent (ksql.assert.topic.default.timeout.ms applies).
	TimeoutMs int64
}
