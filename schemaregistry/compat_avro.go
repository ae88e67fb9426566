package schemaregistry

import "github.com/hamba/avro/v2"

// avroReadable is Avro schema resolution (the specification's rules, as
// hamba/avro's SchemaCompatibility implements them: field defaults,
// promotions int→long→float→double, string↔bytes, enum symbols, unions).
func avroReadable(reader, writer *parsed) []string {
	if err := avro.NewSchemaCompatibility().Compatible(reader.avro, writer.avro); err != nil {
		return []string{err.Error()}
	}
	return nil
}
