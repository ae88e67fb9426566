package planner

import (
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// schemaInference lists the formats that can read their columns from a
// schema registry, and so accept KEY_SCHEMA_ID / VALUE_SCHEMA_ID.
var schemaInference = map[string]bool{"AVRO": true, "PROTOBUF": true, "JSON_SR": true}

// fullSchemaName lists the formats that name their generated schema, and
// so accept KEY_SCHEMA_FULL_NAME / VALUE_SCHEMA_FULL_NAME.
var fullSchemaName = map[string]bool{"AVRO": true, "PROTOBUF": true, "PROTOBUF_NOSR": true, "JSON_SR": true}

// checkSchemaProps rejects schema-registry properties given to a format
// that has no use for them, with ksqlDB's messages.
func checkSchemaProps(src *Source, w *withProps) error {
	sides := []struct{ side, format string }{{"KEY", src.KeyFormat.Name}, {"VALUE", src.ValueFormat.Name}}
	for _, s := range sides {
		if _, pos, ok := w.str(s.side + "_SCHEMA_ID"); ok && !schemaInference[s.format] {
			return sqlerr.New(sqlerr.Semantic, pos, "%s_FORMAT should support schema inference when %s_SCHEMA_ID is provided. Current format is %s.", s.side, s.side, s.format)
		}
		for _, prop := range fullNameProps(s.side) {
			if _, pos, ok := w.str(prop); ok && !fullSchemaName[s.format] {
				return sqlerr.New(sqlerr.Semantic, pos, "%s does not support the following configs: [fullSchemaName]", s.format)
			}
		}
	}
	return nil
}

// fullNameProps are the WITH properties naming side's schema;
// VALUE_AVRO_SCHEMA_FULL_NAME is the older spelling of the value one.
func fullNameProps(side string) []string {
	if side == "KEY" {
		return []string{"KEY_SCHEMA_FULL_NAME"}
	}
	return []string{"VALUE_SCHEMA_FULL_NAME", "VALUE_AVRO_SCHEMA_FULL_NAME"}
}
