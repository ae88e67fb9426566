package planner

import (
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// schemaInference reports whether a format can read its columns from a
// schema registry, and so accepts KEY_SCHEMA_ID / VALUE_SCHEMA_ID.
func schemaInference(format string) bool {
	return format == "AVRO" || format == "PROTOBUF" || format == "JSON_SR"
}

// fullSchemaName reports whether a format names its generated schema, and
// so accepts KEY_SCHEMA_FULL_NAME / VALUE_SCHEMA_FULL_NAME.
func fullSchemaName(format string) bool {
	return schemaInference(format) || format == "PROTOBUF_NOSR"
}

// checkFormatProps rejects WITH properties given to a format that does
// not support them, with ksqlDB's messages, at the property. (The codecs
// check delimiters and wrapping again, without a position.)
func checkFormatProps(src *Source, w *withProps) error {
	if err := checkWrapping(src, w); err != nil {
		return err
	}
	sides := []struct{ side, format string }{{"KEY", src.KeyFormat.Name}, {"VALUE", src.ValueFormat.Name}}
	for _, s := range sides {
		if _, pos, ok := w.str(s.side + "_DELIMITER"); ok && s.format != "DELIMITED" {
			return sqlerr.New(sqlerr.Semantic, pos, "%s does not support the following configs: [delimiter]", s.format)
		}
		if _, pos, ok := w.str(s.side + "_SCHEMA_ID"); ok && !schemaInference(s.format) {
			return sqlerr.New(sqlerr.Semantic, pos, "%s_FORMAT should support schema inference when %s_SCHEMA_ID is provided. Current format is %s.", s.side, s.side, s.format)
		}
		for _, prop := range fullNameProps(s.side) {
			if _, pos, ok := w.str(prop); ok && !fullSchemaName(s.format) {
				return sqlerr.New(sqlerr.Semantic, pos, "%s does not support the following configs: [fullSchemaName]", s.format)
			}
		}
	}
	return nil
}

// checkWrapping checks an explicit WRAP_SINGLE_VALUE: DELIMITED and
// KAFKA cannot wrap, and any format needs exactly one value column
// (unless the columns come from a schema registry).
func checkWrapping(src *Source, w *withProps) error {
	wrap, ok, err := w.boolean("WRAP_SINGLE_VALUE")
	if err != nil || !ok {
		return err
	}
	pos := posOf(w, "WRAP_SINGLE_VALUE")
	if f := src.ValueFormat.Name; wrap && (f == "DELIMITED" || f == "KAFKA") {
		return sqlerr.New(sqlerr.Semantic, pos, "Format '%s' does not support 'WRAP_SINGLE_VALUE' set to 'true'.", f)
	}
	inferred := len(valueColumns(src.Schema)) == 0 && schemaInference(src.ValueFormat.Name)
	if len(valueColumns(src.Schema)) != 1 && len(src.Schema.Columns) > 0 && !inferred {
		return sqlerr.New(sqlerr.Semantic, pos, "'WRAP_SINGLE_VALUE' is only valid for single-field value schemas")
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
