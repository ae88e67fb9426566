package format

import (
	"context"
	"errors"
	"fmt"
)

// SchemaRegistry is what the schema-registry formats (AVRO, PROTOBUF,
// JSON_SR) need of a Confluent-compatible registry: schemas by id for
// decoding, the latest version of a subject for inference, registration
// for sinks, and subject deletion for DROP … DELETE TOPIC. RegistryClient
// implements it over franz-go's sr.Client; tests may use any other.
type SchemaRegistry interface {
	SchemaByID(ctx context.Context, id int) (RegisteredSchema, error)
	Latest(ctx context.Context, subject string) (RegisteredSchema, error)
	// Register adds s under subject (or returns the version it already
	// is). A compatibility failure is an error naming the subject and
	// the rule broken.
	Register(ctx context.Context, subject string, s Schema) (RegisteredSchema, error)
	DeleteSubject(ctx context.Context, subject string, permanent bool) error
}

// SubjectLister is the registry's GET /schemas/ids/{id}/subjects, which
// ASSERT SCHEMA SUBJECT … ID … asks; RegistryClient implements it.
type SubjectLister interface {
	SubjectsByID(ctx context.Context, id int) ([]string, error)
}

var _ SubjectLister = (*RegistryClient)(nil)

// SchemaType is a schema's type as Confluent names it.
type SchemaType string

// The schema types of the Confluent registry.
const (
	AvroSchema     SchemaType = "AVRO"
	ProtobufSchema SchemaType = "PROTOBUF"
	JSONSchema     SchemaType = "JSON"
)

// Schema is a schema's text with its type and references.
type Schema struct {
	Type       SchemaType
	Text       string
	References []SchemaReference
}

// SchemaReference names another registered schema a schema imports.
type SchemaReference struct {
	Name, Subject string
	Version       int
}

// RegisteredSchema is a schema as the registry stores it.
type RegisteredSchema struct {
	Schema
	ID, Version int
	Subject     string
}

// ErrSchemaNotFound marks a registry answer "no such subject, version or
// schema id" (Confluent's 40401, 40402, 40403). Test with errors.Is.
var ErrSchemaNotFound = errors.New("not found in the schema registry")

// IncompatibleSchemaError is a registration the registry refused because
// the schema breaks the subject's compatibility rule (Confluent's 409).
type IncompatibleSchemaError struct {
	Subject string
	Rule    string // the subject's compatibility level, e.g. BACKWARD; "" if unknown
	Detail  string // the registry's message
}

func (e *IncompatibleSchemaError) Error() string {
	rule := e.Rule
	if rule == "" {
		rule = "its compatibility level"
	}
	return fmt.Sprintf("the schema is incompatible with the latest schema of subject %s under %s: %s", e.Subject, rule, e.Detail)
}

// KeySubject and ValueSubject are the subjects ksqlDB uses for a topic's
// key and value schemas (KsqlConstants.getSRSubject).
func KeySubject(topic string) string { return topic + "-key" }

// ValueSubject is the subject of topic's value schemas.
func ValueSubject(topic string) string { return topic + "-value" }

// SchemaTypeOf returns the registry schema type of a format, and whether
// the format uses a registry at all.
func SchemaTypeOf(format string) (SchemaType, bool) {
	switch format {
	case Avro:
		return AvroSchema, true
	case Protobuf:
		return ProtobufSchema, true
	case JSONSR:
		return JSONSchema, true
	}
	return "", false
}

// RegistryUnavailableError is a record that could not be decoded because
// the schema registry did not answer (not because of its bytes): the
// caller should retry the record later rather than log and skip it.
type RegistryUnavailableError struct{ Err error }

func (e *RegistryUnavailableError) Error() string {
	return "the schema registry is unavailable: " + e.Err.Error()
}

func (e *RegistryUnavailableError) Unwrap() error { return e.Err }
