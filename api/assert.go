package api

import "strconv"

// The "@type"s of AssertSchemaEntity and AssertTopicEntity.
const (
	TypeAssertSchema = "assert_schema"
	TypeAssertTopic  = "assert_topic"
)

// AssertTopicEntity ("assert_topic") is the answer of an ASSERT TOPIC
// that held: the topic and whether it asserted the topic exists (false
// for ASSERT NOT EXISTS). An assertion that fails is an error with
// CodeAssertionFailed.
type AssertTopicEntity struct {
	StatementText string    `json:"statementText"`
	TopicName     string    `json:"topicName"`
	Exists        bool      `json:"exists"`
	Warnings      []Warning `json:"warnings"`
}

// EntityType returns "assert_topic".
func (e AssertTopicEntity) EntityType() string { return TypeAssertTopic }

// EntityWarnings returns the entity's warnings.
func (e AssertTopicEntity) EntityWarnings() []Warning { return e.Warnings }

// MarshalJSON encodes the entity with its "@type" first.
func (e AssertTopicEntity) MarshalJSON() ([]byte, error) {
	type plain AssertTopicEntity
	p := plain(e)
	p.Warnings = orEmpty(p.Warnings)
	return marshalTyped(e.EntityType(), p)
}

// Text is the entity as ksqlDB's CLI prints it: "Topic t exists." (or
// "does not exist.").
func (e AssertTopicEntity) Text() string {
	if e.Exists {
		return "Topic " + e.TopicName + " exists."
	}
	return "Topic " + e.TopicName + " does not exist."
}

// AssertSchemaEntity ("assert_schema") is the answer of an ASSERT SCHEMA
// that held: the subject and id it named (null when absent) and whether
// it asserted the schema exists (false for ASSERT NOT EXISTS). An
// assertion that fails is an error with CodeAssertionFailed.
type AssertSchemaEntity struct {
	StatementText string    `json:"statementText"`
	Subject       *string   `json:"subject"`
	ID            *int      `json:"id"`
	Exists        bool      `json:"exists"`
	Warnings      []Warning `json:"warnings"`
}

// EntityType returns "assert_schema".
func (e AssertSchemaEntity) EntityType() string { return TypeAssertSchema }

// EntityWarnings returns the entity's warnings.
func (e AssertSchemaEntity) EntityWarnings() []Warning { return e.Warnings }

// MarshalJSON encodes the entity with its "@type" first.
func (e AssertSchemaEntity) MarshalJSON() ([]byte, error) {
	type plain AssertSchemaEntity
	p := plain(e)
	p.Warnings = orEmpty(p.Warnings)
	return marshalTyped(e.EntityType(), p)
}

// Text is the entity as ksqlDB's CLI prints it: "Schema with subject s
// id n exists." (or "does not exist.").
func (e AssertSchemaEntity) Text() string {
	s := "Schema with"
	if e.Subject != nil {
		s += " subject " + *e.Subject
	}
	if e.ID != nil {
		s += " id " + strconv.Itoa(*e.ID)
	}
	if e.Exists {
		return s + " exists."
	}
	return s + " does not exist."
}
