package api

import (
	"bytes"
	"encoding/json"
	"sort"
)

// Query types of RunningQuery and QueryDescription.
const (
	QueryPersistent = "PERSISTENT"
	QueryPush       = "PUSH"
)

// Query states (ksqlDB's KsqlQueryStatus), in the order ksqlDB lists them
// in statusCount.
var queryStateOrder = [...]string{"RUNNING", "ERROR", "UNRESPONSIVE", "PAUSED"}

// QueriesList ("queries") is the result of SHOW QUERIES.
type QueriesList struct {
	StatementText string         `json:"statementText"`
	Queries       []RunningQuery `json:"queries"`
	Warnings      []Warning      `json:"warnings"`
}

// EntityType returns "queries".
func (e QueriesList) EntityType() string { return TypeQueries }

// EntityWarnings returns the entity's warnings.
func (e QueriesList) EntityWarnings() []Warning { return e.Warnings }

// MarshalJSON encodes the entity with its "@type" first.
func (e QueriesList) MarshalJSON() ([]byte, error) {
	type plain QueriesList
	p := plain(e)
	p.Queries, p.Warnings = orEmpty(p.Queries), orEmpty(p.Warnings)
	return marshalTyped(e.EntityType(), p)
}

// RunningQuery is one query in SHOW QUERIES and in DESCRIBE's read/write
// query lists.
type RunningQuery struct {
	QueryString     string      `json:"queryString"`
	Sinks           []string    `json:"sinks"`
	SinkKafkaTopics []string    `json:"sinkKafkaTopics"`
	ID              string      `json:"id"`
	StatusCount     StatusCount `json:"statusCount"` // hosts per state, e.g. {"RUNNING":1}
	QueryType       string      `json:"queryType"`   // PERSISTENT or PUSH
	State           string      `json:"state"`       // aggregate state, e.g. RUNNING
	// ProcessingGuarantee is sqlstream's: at_least_once or exactly_once_v2
	// for a persistent query, absent for a push query.
	ProcessingGuarantee string `json:"processingGuarantee,omitempty"`
	// Upgrade is sqlstream's, for EXPLAIN CREATE OR REPLACE of a sink
	// with a running query: whether the statement upgrades that query in
	// place and what it keeps, adds and drops, or why it is refused.
	Upgrade string `json:"upgrade,omitempty"`
}

// MarshalJSON encodes the query with [] for empty lists.
func (q RunningQuery) MarshalJSON() ([]byte, error) {
	type plain RunningQuery
	p := plain(q)
	p.Sinks, p.SinkKafkaTopics = orEmpty(p.Sinks), orEmpty(p.SinkKafkaTopics)
	return Marshal(p)
}

// StatusCount counts hosts per query state. It encodes in ksqlDB's enum
// order (RUNNING, ERROR, UNRESPONSIVE, PAUSED, then others by name).
type StatusCount map[string]int

// MarshalJSON encodes the counts in ksqlDB's state order.
func (c StatusCount) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range c.orderedKeys() {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		buf.Write(kb)
		buf.WriteByte(':')
		vb, _ := json.Marshal(c[k])
		buf.Write(vb)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func (c StatusCount) orderedKeys() []string {
	known := make(map[string]bool, len(queryStateOrder))
	var keys []string
	for _, k := range queryStateOrder {
		known[k] = true
		if _, ok := c[k]; ok {
			keys = append(keys, k)
		}
	}
	var rest []string
	for k := range c {
		if !known[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(keys, rest...)
}

// QueryDescriptionEntity ("queryDescription") is the result of EXPLAIN.
type QueryDescriptionEntity struct {
	StatementText    string           `json:"statementText"`
	QueryDescription QueryDescription `json:"queryDescription"`
	Warnings         []Warning        `json:"warnings"`
}

// EntityType returns "queryDescription".
func (e QueryDescriptionEntity) EntityType() string { return TypeQueryDescription }

// EntityWarnings returns the entity's warnings.
func (e QueryDescriptionEntity) EntityWarnings() []Warning { return e.Warnings }

// MarshalJSON encodes the entity with its "@type" first.
func (e QueryDescriptionEntity) MarshalJSON() ([]byte, error) {
	type plain QueryDescriptionEntity
	p := plain(e)
	p.Warnings = orEmpty(p.Warnings)
	return marshalTyped(e.EntityType(), p)
}

// QueryDescriptionList ("query_descriptions") is the result of SHOW
// QUERIES EXTENDED.
type QueryDescriptionList struct {
	StatementText     string             `json:"statementText"`
	QueryDescriptions []QueryDescription `json:"queryDescriptions"`
	Warnings          []Warning          `json:"warnings"`
}

// EntityType returns "query_descriptions".
func (e QueryDescriptionList) EntityType() string { return TypeQueryDescriptions }

// EntityWarnings returns the entity's warnings.
func (e QueryDescriptionList) EntityWarnings() []Warning { return e.Warnings }

// MarshalJSON encodes the entity with its "@type" first.
func (e QueryDescriptionList) MarshalJSON() ([]byte, error) {
	type plain QueryDescriptionList
	p := plain(e)
	p.QueryDescriptions, p.Warnings = orEmpty(p.QueryDescriptions), orEmpty(p.Warnings)
	return marshalTyped(e.EntityType(), p)
}

// QueryDescription describes one query (EXPLAIN).
type QueryDescription struct {
	ID            string      `json:"id"`
	StatementText string      `json:"statementText"`
	WindowType    *string     `json:"windowType"` // null when not windowed
	Fields        []FieldInfo `json:"fields"`     // output columns
	Sources       []string    `json:"sources"`
	Sinks         []string    `json:"sinks"`
	Topology      string      `json:"topology"`      // topology description text
	ExecutionPlan string      `json:"executionPlan"` // logical plan text
	// OverriddenProperties are the properties the query was started with.
	OverriddenProperties map[string]any `json:"overriddenProperties"`
	// KsqlHostQueryStatus maps "host:port" to the query's state there.
	KsqlHostQueryStatus map[string]string `json:"ksqlHostQueryStatus"`
	QueryType           string            `json:"queryType"`
	QueryErrors         []QueryError      `json:"queryErrors"`
	TasksMetadata       []TaskMetadata    `json:"tasksMetadata"`
	ConsumerGroupID     string            `json:"consumerGroupId"`
	State               *string           `json:"state"` // null for push queries without a host status
	// ProcessingGuarantee is sqlstream's: the guarantee a persistent query
	// runs with (at_least_once or exactly_once_v2).
	ProcessingGuarantee string `json:"processingGuarantee,omitempty"`
	// Upgrade is sqlstream's, for EXPLAIN CREATE OR REPLACE of a sink
	// with a running query: whether the statement upgrades that query in
	// place and what it keeps, adds and drops, or why it is refused.
	Upgrade string `json:"upgrade,omitempty"`
}

// MarshalJSON encodes the description with [] and {} for empty values.
func (d QueryDescription) MarshalJSON() ([]byte, error) {
	type plain QueryDescription
	p := plain(d)
	p.Fields, p.Sources, p.Sinks = orEmpty(p.Fields), orEmpty(p.Sources), orEmpty(p.Sinks)
	p.QueryErrors, p.TasksMetadata = orEmpty(p.QueryErrors), orEmpty(p.TasksMetadata)
	if p.OverriddenProperties == nil {
		p.OverriddenProperties = map[string]any{}
	}
	if p.KsqlHostQueryStatus == nil {
		p.KsqlHostQueryStatus = map[string]string{}
	}
	return Marshal(p)
}

// QueryError is one error a query hit (EXPLAIN's queryErrors).
type QueryError struct {
	Timestamp    int64  `json:"timestamp"`
	ErrorMessage string `json:"errorMessage"`
	Type         string `json:"type"` // USER, SYSTEM or UNKNOWN
}

// TaskMetadata describes one task of a persistent query.
type TaskMetadata struct {
	TaskID       string        `json:"taskId"`
	TopicOffsets []TopicOffset `json:"topicOffsets"`
	// TimeCurrentIdlingStarted is when the task started idling, or null.
	TimeCurrentIdlingStarted *int64 `json:"timeCurrentIdlingStarted"`
}

// TopicOffset is a task's position on one input partition.
type TopicOffset struct {
	TopicPartition TopicPartition `json:"topicPartition"`
	Offset         int64          `json:"offset"`
}

// TopicPartition names one partition of a topic.
type TopicPartition struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
}
