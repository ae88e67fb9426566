package types

import "github.com/cockroachdb/apd/v3"

// Values are plain Go values, one representation per Kind:
//
//	BOOLEAN   bool          INTEGER  int32        BIGINT  int64
//	DOUBLE    float64       DECIMAL  *apd.Decimal STRING  string
//	BYTES     []byte        TIMESTAMP Timestamp   DATE    Date
//	TIME      Time          ARRAY    []any        MAP     map[string]any
//	STRUCT    *StructValue
//
// SQL NULL is Go nil at every level. Operators never mutate a value they did
// not create, so values may be shared between rows.

// Timestamp is a TIMESTAMP value: milliseconds since the Unix epoch, UTC.
type Timestamp int64

// Date is a DATE value: days since the Unix epoch.
type Date int32

// Time is a TIME value: milliseconds since midnight.
type Time int32

// DecimalValue is the Go type of DECIMAL values.
type DecimalValue = *apd.Decimal

// StructValue is a STRUCT value: one value per field of Type, in order.
type StructValue struct {
	Type   *Type
	Values []any
}

// Get returns the value of the field named name (see Type.Field), and
// whether the field exists.
func (s *StructValue) Get(name string) (any, bool) {
	i := s.Type.Field(name)
	if i < 0 {
		return nil, false
	}
	return s.Values[i], true
}

// Window is the time window a windowed row belongs to. For time windows End
// is Start + size (exclusive); for session windows both ends are inclusive
// record times.
type Window struct {
	Start, End int64
}

// Row is the unit that flows between operators and that expressions are
// evaluated against: one value per column of the operator's input schema
// (key columns first), plus the record metadata behind the pseudo columns.
type Row struct {
	Values    []any
	Time      int64   // ROWTIME: event time in epoch millis
	Partition int32   // ROWPARTITION of the source record
	Offset    int64   // ROWOFFSET of the source record
	Window    *Window // WINDOWSTART / WINDOWEND; nil when not windowed
	// Tombstone marks a table row deletion: Values hold only the key
	// columns (the rest are nil).
	Tombstone bool
	// NullKey marks a row whose record key was null as a whole (as
	// opposed to a key whose columns are null); sinks write a null key.
	NullKey bool
	// Retract marks a row to subtract from an aggregate: the old value of
	// a table row that changed group or was deleted. Quiet marks a retract
	// followed by an add for the same group: the aggregate emits once,
	// after the add.
	Retract, Quiet bool
	// Old is the previous value of a table row (key columns included)
	// when the operator that produced the row knows it; HasOld says it
	// does (then nil Old means the row did not exist). Table filters use
	// it to emit a delete only for rows that were visible before.
	Old    []any
	HasOld bool
}
