package format

import (
	"strings"
	"unicode/utf8"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// Format names as ksqlDB spells them (upper case).
const (
	JSON      = "JSON"
	Delimited = "DELIMITED"
	Kafka     = "KAFKA"
	None      = "NONE"
	// The schema-registry formats (see registry.go): AVRO, PROTOBUF and
	// JSON_SR carry Confluent's wire header; PROTOBUF_NOSR is bare
	// protobuf with the schema derived from the columns.
	Avro         = "AVRO"
	Protobuf     = "PROTOBUF"
	ProtobufNoSR = "PROTOBUF_NOSR"
	JSONSR       = "JSON_SR"
)

// Spec describes the serialization of one side (key or value) of a record.
type Spec struct {
	// Name is the format: JSON, DELIMITED, KAFKA or NONE.
	Name string
	// Delimiter separates DELIMITED fields; 0 means the default ','.
	// Setting it for another format is an error.
	Delimiter rune
	// WrapSingle is WRAP_SINGLE_VALUE as the user wrote it; nil means the
	// format's default (wrapped for JSON, unwrapped for DELIMITED and KAFKA).
	// Callers applying ksql.persistence.wrap.single.values must do so only
	// for single-column value schemas: an explicit setting on a multi-column
	// schema is an error.
	WrapSingle *bool

	// SchemaID is KEY_SCHEMA_ID / VALUE_SCHEMA_ID: the registered schema
	// the columns came from and sinks serialize with (0: none; the codec
	// registers the schema it derives from the columns).
	SchemaID int
	// FullName is KEY_SCHEMA_FULL_NAME / VALUE_SCHEMA_FULL_NAME ("": the
	// format's default name).
	FullName string
	// NullableRepresentation is *_PROTOBUF_NULLABLE_REPRESENTATION: "",
	// WRAPPER or OPTIONAL.
	NullableRepresentation string
	// Subject is the registry subject of this side (<topic>-key or
	// <topic>-value); the planner sets it for registry formats.
	Subject string
	// Registry serves the schemas of AVRO, PROTOBUF and JSON_SR; nil when
	// no registry is configured (the planner refuses those formats then).
	Registry SchemaRegistry
}

// ParseFormat returns the canonical (upper-case) name of a format named
// case-insensitively, or an sqlerr.Unknown error "Unknown format: FOO".
func ParseFormat(name string) (string, error) {
	switch up := strings.ToUpper(strings.TrimSpace(name)); up {
	case JSON, Delimited, Kafka, None, Avro, Protobuf, ProtobufNoSR, JSONSR:
		return up, nil
	}
	return "", sqlerr.New(sqlerr.Unknown, ast.Pos{}, "Unknown format: %s", name)
}

// ParseSpec builds a Spec from WITH-clause values: the format name, the
// delimiter property (nil when absent; prop names it in errors, e.g.
// VALUE_DELIMITER) and WRAP_SINGLE_VALUE (nil when absent).
func ParseSpec(name string, delimiter *string, prop string, wrap *bool) (Spec, error) {
	f, err := ParseFormat(name)
	if err != nil {
		return Spec{}, err
	}
	s := Spec{Name: f, WrapSingle: wrap}
	if delimiter != nil {
		if s.Delimiter, err = ParseDelimiter(prop, *delimiter); err != nil {
			return Spec{}, err
		}
	}
	return s, s.validate()
}

// ParseDelimiter parses a VALUE_DELIMITER / KEY_DELIMITER value: a single
// character, or the names TAB and SPACE (any case). prop is the property
// name used in the error message.
func ParseDelimiter(prop, value string) (rune, error) {
	switch strings.ToUpper(value) {
	case "TAB":
		return '\t', nil
	case "SPACE":
		return ' ', nil
	}
	if value == "" || strings.TrimSpace(value) == "" && utf8.RuneCountInString(value) == 1 {
		return 0, delimiterError(prop, "Delimiter cannot be empty, if you meant to have a tab or space for delimiter, please use the special values 'TAB' or 'SPACE'")
	}
	r, n := utf8.DecodeRuneInString(value)
	if n != len(value) || r == utf8.RuneError || r == '"' || r == '\n' || r == '\r' {
		return 0, delimiterError(prop, "Invalid delimiter value: '"+value+"'. Delimiter must be a single character or TAB,SPACE")
	}
	return r, nil
}

func delimiterError(prop, msg string) error {
	if prop == "" {
		prop = "VALUE_DELIMITER"
	}
	return sqlerr.New(sqlerr.Semantic, ast.Pos{},
		"Configuration %s is invalid: %s\nExample valid value: ';'", prop, msg)
}

// validate checks the settings that do not depend on the columns.
func (s Spec) validate() error {
	if _, err := ParseFormat(s.Name); err != nil {
		return err
	}
	if s.Delimiter != 0 && s.Name != Delimited {
		return sqlerr.New(sqlerr.Semantic, ast.Pos{},
			"%s does not support the following configs: [delimiter]", s.Name)
	}
	if s.SchemaID != 0 {
		if _, ok := SchemaTypeOf(s.Name); !ok {
			return sqlerr.New(sqlerr.Semantic, ast.Pos{}, "%s does not support schema ids", s.Name)
		}
	}
	if s.WrapSingle != nil && !*s.WrapSingle && (s.Name == Protobuf || s.Name == ProtobufNoSR) {
		return sqlerr.New(sqlerr.Semantic, ast.Pos{},
			"Format '%s' does not support 'WRAP_SINGLE_VALUE' set to 'false'.", s.Name)
	}
	if s.WrapSingle != nil && *s.WrapSingle && (s.Name == Delimited || s.Name == Kafka) {
		return sqlerr.New(sqlerr.Semantic, ast.Pos{},
			"Format '%s' does not support 'WRAP_SINGLE_VALUE' set to 'true'.", s.Name)
	}
	return nil
}

// delimiter returns the effective DELIMITED separator.
func (s Spec) delimiter() rune {
	if s.Delimiter == 0 {
		return ','
	}
	return s.Delimiter
}

// unwrapped reports whether a single value column is written bare.
func (s Spec) unwrapped() bool {
	if s.WrapSingle != nil {
		return !*s.WrapSingle
	}
	return s.Name != JSON && s.Name != JSONSR && s.Name != Avro && s.Name != Protobuf && s.Name != ProtobufNoSR
}

// UsesRegistry reports whether the format reads and writes schemas in a
// schema registry (AVRO, PROTOBUF, JSON_SR).
func (s Spec) UsesRegistry() bool {
	_, ok := SchemaTypeOf(s.Name)
	return ok
}
