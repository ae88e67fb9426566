// Package types is sqlstream's SQL type system and the values that flow
// through a query: every other package speaks it, and it imports none of
// them.
//
//	Type{Kind, Elem, Key, Fields, precision/scale}   (type.go)
//	   │  a column's type
//	   ▼
//	Schema: key columns first, then value, header   (schema.go)
//	and record columns (Column.NS)
//	   │  describes
//	   ▼
//	Row: Values in the schema's order, ROWTIME,     (value.go)
//	partition, offset, window, tombstone/retract
//	   │  ordered by
//	   ▼
//	CompareValues, CompareStrings: Java's compareTo (compare.go)
//
// Values are plain Go values, one representation per Kind (BOOLEAN bool,
// INTEGER int32, BIGINT int64, DOUBLE float64, DECIMAL *apd.Decimal,
// STRING string, BYTES []byte, TIMESTAMP Timestamp, DATE Date, TIME Time,
// ARRAY []any, MAP map[string]any, STRUCT *StructValue); SQL NULL is Go
// nil at every level. Operators never mutate a value they did not
// create, so rows may share values.
//
// The one order of values (compare.go) is that of ksqlDB's Java classes'
// compareTo: strings by UTF-16 code units, as String.compareTo.
package types
