package types

import (
	"strconv"
	"strings"
)

// Kind is the base SQL type of a value (ksqlDB's SqlBaseType).
type Kind uint8

// The thirteen ksqlDB base types. Unknown is the type of an untyped NULL
// literal before type checking assigns it one.
const (
	KindUnknown Kind = iota
	KindBoolean
	KindInteger
	KindBigint
	KindDouble
	KindDecimal
	KindString
	KindBytes
	KindTimestamp
	KindDate
	KindTime
	KindArray
	KindMap
	KindStruct
)

var kindNames = [...]string{
	KindUnknown: "UNKNOWN", KindBoolean: "BOOLEAN", KindInteger: "INTEGER", KindBigint: "BIGINT",
	KindDouble: "DOUBLE", KindDecimal: "DECIMAL", KindString: "STRING", KindBytes: "BYTES",
	KindTimestamp: "TIMESTAMP", KindDate: "DATE", KindTime: "TIME", KindArray: "ARRAY",
	KindMap: "MAP", KindStruct: "STRUCT",
}

// String returns the kind's name as ksqlDB's REST API spells it
// (INTEGER, not INT).
func (k Kind) String() string { return kindNames[k] }

// IsNumeric reports whether k is INTEGER, BIGINT, DECIMAL or DOUBLE.
func (k Kind) IsNumeric() bool {
	return k == KindInteger || k == KindBigint || k == KindDouble || k == KindDecimal
}

// Type is a SQL type. Primitive types carry only a Kind (and precision and
// scale for DECIMAL); ARRAY uses Elem, MAP uses Key and Elem (the value type),
// STRUCT uses Fields. Types are immutable once built; share them freely.
type Type struct {
	Kind      Kind
	Precision int     // DECIMAL only
	Scale     int     // DECIMAL only
	Elem      *Type   // ARRAY element, MAP value
	Key       *Type   // MAP key (STRING in ksqlDB)
	Fields    []Field // STRUCT fields, in declaration order
}

// Field is one named member of a STRUCT type. Names keep the case they were
// declared with (after the identifier case rule).
type Field struct {
	Name string
	Type *Type
}

// Shared instances of the primitive types.
var (
	// These are immutable values, not configuration; sharing them avoids
	// allocating a Type per column.
	BooleanType   = &Type{Kind: KindBoolean}
	IntegerType   = &Type{Kind: KindInteger}
	BigintType    = &Type{Kind: KindBigint}
	DoubleType    = &Type{Kind: KindDouble}
	StringType    = &Type{Kind: KindString}
	BytesType     = &Type{Kind: KindBytes}
	TimestampType = &Type{Kind: KindTimestamp}
	DateType      = &Type{Kind: KindDate}
	TimeType      = &Type{Kind: KindTime}
	UnknownType   = &Type{Kind: KindUnknown}
)

// DecimalOf returns DECIMAL(precision, scale).
func DecimalOf(precision, scale int) *Type {
	return &Type{Kind: KindDecimal, Precision: precision, Scale: scale}
}

// ArrayOf returns ARRAY<elem>.
func ArrayOf(elem *Type) *Type { return &Type{Kind: KindArray, Elem: elem} }

// MapOf returns MAP<key, value>.
func MapOf(key, value *Type) *Type { return &Type{Kind: KindMap, Key: key, Elem: value} }

// StructOf returns STRUCT<fields…>.
func StructOf(fields ...Field) *Type { return &Type{Kind: KindStruct, Fields: fields} }

// Field returns the index of the struct field named name, matching
// case-insensitively when no exact match exists, or -1.
func (t *Type) Field(name string) int {
	for i, f := range t.Fields {
		if f.Name == name {
			return i
		}
	}
	for i, f := range t.Fields {
		if strings.EqualFold(f.Name, name) {
			return i
		}
	}
	return -1
}

// Equal reports whether t and u are the same type, struct field names
// included.
func (t *Type) Equal(u *Type) bool {
	if t == u {
		return true
	}
	if t == nil || u == nil || t.Kind != u.Kind {
		return false
	}
	switch t.Kind {
	case KindDecimal:
		return t.Precision == u.Precision && t.Scale == u.Scale
	case KindArray:
		return t.Elem.Equal(u.Elem)
	case KindMap:
		return t.Key.Equal(u.Key) && t.Elem.Equal(u.Elem)
	case KindStruct:
		if len(t.Fields) != len(u.Fields) {
			return false
		}
		for i := range t.Fields {
			if t.Fields[i].Name != u.Fields[i].Name || !t.Fields[i].Type.Equal(u.Fields[i].Type) {
				return false
			}
		}
	}
	return true
}

// String renders t in ksqlDB's SQL type syntax as the REST API prints it in
// columnTypes: STRING, DECIMAL(4, 2), ARRAY<STRING>, MAP<STRING, BIGINT>,
// STRUCT<`F1` STRING, `F2` INTEGER>.
func (t *Type) String() string {
	var b strings.Builder
	t.format(&b)
	return b.String()
}

func (t *Type) format(b *strings.Builder) {
	switch t.Kind {
	case KindDecimal:
		b.WriteString("DECIMAL(")
		b.WriteString(strconv.Itoa(t.Precision))
		b.WriteString(", ")
		b.WriteString(strconv.Itoa(t.Scale))
		b.WriteString(")")
	case KindArray:
		b.WriteString("ARRAY<")
		t.Elem.format(b)
		b.WriteString(">")
	case KindMap:
		b.WriteString("MAP<")
		t.Key.format(b)
		b.WriteString(", ")
		t.Elem.format(b)
		b.WriteString(">")
	case KindStruct:
		b.WriteString("STRUCT<")
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("`")
			b.WriteString(f.Name)
			b.WriteString("` ")
			f.Type.format(b)
		}
		b.WriteString(">")
	default:
		b.WriteString(t.Kind.String())
	}
}
