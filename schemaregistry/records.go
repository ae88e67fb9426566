package schemaregistry

import (
	"encoding/json"
	"fmt"
)

// The record shapes of Confluent's _schemas topic (confluentinc/schema-
// registry storage: SchemaRegistryKeyType and the *Key / *Value classes),
// so that a Confluent registry or Karapace pointed at the same topic reads
// what this one wrote, and the other way round. Keys are JSON with the
// fields in Confluent's order: compaction collapses byte-equal keys, so a
// key must be written the same way every time.
const (
	keySchema        = "SCHEMA"
	keyConfig        = "CONFIG"
	keyMode          = "MODE"
	keyNoop          = "NOOP"
	keyDeleteSubject = "DELETE_SUBJECT"
	keyClearSubject  = "CLEAR_SUBJECT"
)

// recordKey is the key of every _schemas record. Subject is nil for the
// global CONFIG and MODE keys; Version is set on SCHEMA keys only.
type recordKey struct {
	KeyType string  `json:"keytype"`
	Subject *string `json:"subject,omitempty"`
	Version int     `json:"version,omitempty"`
	Magic   int     `json:"magic"`
}

// globalKey is how Confluent writes the global CONFIG and MODE keys: an
// explicit null subject.
type globalKey struct {
	KeyType string  `json:"keytype"`
	Subject *string `json:"subject"`
	Magic   int     `json:"magic"`
}

func schemaKey(subject string, version int) []byte {
	return mustJSON(recordKey{KeyType: keySchema, Subject: &subject, Version: version, Magic: 1})
}

// subjectKey is a CONFIG, MODE, DELETE_SUBJECT or CLEAR_SUBJECT key; ""
// is the global one.
func subjectKey(keyType, subject string) []byte {
	if subject == "" {
		return mustJSON(globalKey{KeyType: keyType})
	}
	return mustJSON(recordKey{KeyType: keyType, Subject: &subject})
}

// schemaValue is the value of a SCHEMA record: one version of a subject.
type schemaValue struct {
	Subject    string      `json:"subject"`
	Version    int         `json:"version"`
	ID         int         `json:"id"`
	SchemaType string      `json:"schemaType,omitempty"` // "" is AVRO
	References []Reference `json:"references,omitempty"`
	Schema     string      `json:"schema"`
	Deleted    bool        `json:"deleted"`
}

type configValue struct {
	CompatibilityLevel string `json:"compatibilityLevel"`
}

type modeValue struct {
	Mode string `json:"mode"`
}

// deleteSubjectValue marks every version up to Version of Subject
// deleted (a soft delete of the subject).
type deleteSubjectValue struct {
	Subject string `json:"subject"`
	Version int    `json:"version"`
}

// Reference is a schema reference as the REST API and _schemas carry it:
// Name is how the referring schema names it (an Avro full name, a
// protobuf import path, a JSON Schema $ref URL).
type Reference struct {
	Name    string `json:"name"`
	Subject string `json:"subject"`
	Version int    `json:"version"`
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("schemaregistry: marshal %T: %v", v, err)) // plain structs of strings and ints
	}
	return b
}

// decodeKey reads a _schemas key; an unknown key type is returned as is
// so that the caller can skip it (Confluent adds types over time).
func decodeKey(b []byte) (recordKey, error) {
	var k recordKey
	if err := json.Unmarshal(b, &k); err != nil {
		return k, fmt.Errorf("_schemas key %q: %w", b, err)
	}
	return k, nil
}
