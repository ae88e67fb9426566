package physical

import (
	"errors"
	"fmt"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// internalFormats decides the serialization of a query's internal topics
// (repartition topics and the keys of join stores, which their changelogs
// carry) as ksqlDB does: in the formats of the source whose rows they
// copy, each registry format under the internal topic's own subjects
// (<topic>-key, <topic>-value), registered by the codec on its first
// record. KEY_/VALUE_SCHEMA_ID are not carried over: the internal topic's
// schema is its columns'. Queries recorded before internal topics
// followed the query's formats (Options.LegacyInternalJSON) keep JSON, so
// their topics and stores stay readable after an upgrade; queries
// recorded before aggregate stores followed them (Options.LegacyStoreJSON)
// keep those stores' JSON values; queries recorded before the aggregate
// store's keys and the stores beside it followed them
// (Options.LegacyStoreKeysJSON) keep those JSON.
type internalFormats struct {
	legacy, legacyStore, legacyStoreKeys bool
	// schemas, while the topology is built, records the schemas the
	// specs decided register (nil afterwards: tasks only read).
	schemas subjectSchemas
}

// keySpec is the key format of internal topic topic copying keys written
// in src: NONE becomes KAFKA (ksqlDB's default key format), KAFKA with
// several columns JSON (a KAFKA key holds one); a format that cannot
// hold cols (a KAFKA key of a STRUCT) falls back to JSON.
func (f internalFormats) keySpec(src format.Spec, topic string, cols []types.Column) format.Spec {
	if f.legacy {
		return format.Spec{Name: format.JSON}
	}
	s := retarget(src, format.KeySubject(topic))
	if s.Name == format.None {
		s = format.Spec{Name: format.Kafka}
	}
	if s.Name == format.Kafka && len(cols) > 1 {
		s = format.Spec{Name: format.JSON}
	}
	if _, err := format.NewKeyCodec(s, cols); err != nil {
		return format.Spec{Name: format.JSON}
	}
	f.schemas.note(s, cols, true)
	return s
}

// joinKeySpec is keySpec for the keys a join copies in its kept side's
// key format (repartition and reformat topics): those were in src's
// format (subject and schema id included) before, not JSON, and legacy
// queries keep them so.
func (f internalFormats) joinKeySpec(src format.Spec, topic string, cols []types.Column) format.Spec {
	if f.legacy {
		return src
	}
	return f.keySpec(src, topic, cols)
}

// valueSpec is the value format of internal topic topic copying values
// written in src; a format that cannot hold cols (KAFKA values of
// several columns, DELIMITED values of a STRUCT) falls back to JSON, as
// do values of no columns (COUNT(*)'s repartition rows), which a
// registry format would write as a null record.
func (f internalFormats) valueSpec(src format.Spec, topic string, cols []types.Column) format.Spec {
	if f.legacy || len(cols) == 0 {
		return format.Spec{Name: format.JSON}
	}
	s := retarget(src, format.ValueSubject(topic))
	if _, err := format.NewValueCodec(s, cols); err != nil {
		return format.Spec{Name: format.JSON}
	}
	f.schemas.note(s, cols, false)
	return s
}

// tableStoreFormats are the formats of the store a table-writing query
// without aggregation keeps its rows in (and so of the store's changelog):
// the table's own, as ksqlDB keeps the rows its serdes wrote, so what pull
// queries read back is what the table's topic holds (a PROTOBUF NULL reads
// back as its default), under the changelog's subjects. Legacy queries
// keep JSON.
func (f internalFormats) tableStoreFormats(table *planner.Source, changelog string) (format.Spec, format.Spec) {
	return f.keySpec(table.KeyFormat, changelog, table.Schema.Keys()),
		f.valueSpec(table.ValueFormat, changelog, valueColumns(table.Schema))
}

// storeValueSpec is the value format of a store keeping a table's rows
// for a join (so of its changelog): the table's own under the
// changelog's subject; JSON for legacy stores (Options.LegacyStoreJSON).
func (f internalFormats) storeValueSpec(src format.Spec, changelog string, cols []types.Column) format.Spec {
	if f.legacyStore {
		return format.Spec{Name: format.JSON}
	}
	return f.valueSpec(src, changelog, cols)
}

// storeKeySpec is the key format of an aggregate store (so of its
// changelog's keys; a windowed store's keys are the inner key ‖ its
// window, as Kafka Streams' window and session stores lay them out): the
// first source's key format under the changelog's key subject, as ksqlDB
// writes `…-Aggregate-Materialize-changelog` keys; JSON for legacy
// stores (Options.LegacyStoreKeysJSON).
func (f internalFormats) storeKeySpec(src format.Spec, changelog string, cols []types.Column) format.Spec {
	if f.legacyStoreKeys {
		return format.Spec{Name: format.JSON}
	}
	return f.keySpec(src, changelog, cols)
}

// rowStoreSpec is the value format of a store beside an aggregate or a
// join that keeps rows of its own (the EMIT FINAL buffer's results, a
// sliding window's raw arguments, a foreign-key join's subscriptions):
// the query's value format under the store changelog's value subject,
// protobuf with wrapped scalars so a NULL column stays NULL; JSON for
// legacy stores (Options.LegacyStoreKeysJSON).
func (f internalFormats) rowStoreSpec(src format.Spec, changelog string, cols []types.Column) format.Spec {
	if f.legacyStoreKeys {
		return format.Spec{Name: format.JSON}
	}
	return f.nullsKept(src, changelog, cols)
}

// inputRowSpecs are the formats of a table aggregation's input-row store
// (Aggregate-Source-Materialize, which keeps each table row so its update
// retracts the old one) and so of its changelog: the table key in the
// source's key format under the changelog's key subject and the whole
// input row (keys included) in its value format under the value subject,
// protobuf with wrapped scalars so a NULL column stays NULL. Legacy
// stores (Options.LegacyStoreKeysJSON), inputs without key columns and
// windowed tables are keyed by the input record's key bytes (a windowed
// key carries its window); legacy rows are JSON.
func (f internalFormats) inputRowSpecs(src *planner.Source, changelog string, in *types.Schema) inputRowFormats {
	if f.legacyStoreKeys {
		return inputRowFormats{recordKey: true, rows: format.Spec{Name: format.JSON}}
	}
	r := inputRowFormats{rows: f.nullsKept(src.ValueFormat, changelog, inputRowColumns(in))}
	for i, c := range in.Columns {
		if c.NS == types.KeyNS {
			r.keyIndex = append(r.keyIndex, i)
		}
	}
	// A windowed table's rows are one per key and window: the record's
	// key bytes carry the window, the key columns alone do not.
	if r.recordKey = len(r.keyIndex) == 0 || src.Windowed(); !r.recordKey {
		r.keys = f.storeKeySpec(src.KeyFormat, changelog, in.Keys())
	}
	return r
}

// nullsKept is f.valueSpec(src, changelog, cols) with NULLs kept
// through protobuf: proto3 writes a NULL scalar as its default, so a
// stored NULL (MAX before any value, a NULL argument) would read back as
// 0 without wrappers. The schema noted for the subject is the wrapped
// one, which the codec registers.
func (f internalFormats) nullsKept(src format.Spec, changelog string, cols []types.Column) format.Spec {
	spec := f.valueSpec(src, changelog, cols)
	if (spec.Name == format.Protobuf || spec.Name == format.ProtobufNoSR) && spec.NullableRepresentation == "" {
		spec.NullableRepresentation = "WRAPPER"
		f.schemas.note(spec, cols, false)
	}
	return spec
}

// retarget is src written to another topic: its own subject, no schema id.
func retarget(src format.Spec, subject string) format.Spec {
	s := src
	s.SchemaID = 0
	s.Subject = ""
	if _, ok := format.SchemaTypeOf(s.Name); ok {
		s.Subject = subject
	}
	return s
}

// internalDecodeError is what an operator reading an internal topic does
// with a record it cannot decode: a record the registry could not serve
// the schema of is returned (the task retries it: it is not at fault),
// any other is logged with its bytes and skipped.
func internalDecodeError(env *TaskEnv, side string, err error, r *InRecord, b []byte) error {
	var ru *format.RegistryUnavailableError
	if errors.As(err, &ru) {
		return fmt.Errorf("record %s[%d]@%d: %w", r.Topic, r.Partition, r.Offset, ru)
	}
	env.log(DeserializationError, side, err.Error(), b)
	return nil
}

// encodeFailure is what a sink does with a row it cannot encode: a row
// whose schema the registry could not take (it did not answer) is
// returned, so the task retries it rather than lose it; any other is
// logged as a serialization error and skipped.
func encodeFailure(env *TaskEnv, side string, err error) error {
	var ru *format.RegistryUnavailableError
	if errors.As(err, &ru) {
		return ru
	}
	env.log(SerializationError, side, err.Error(), nil)
	return nil
}
