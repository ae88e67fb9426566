package avro

import (
	"fmt"
	"strings"

	hamba "github.com/hamba/avro/v2"
	"github.com/sqlstream/sqlstream/sql/types"
)

// Columns infers sqlstream columns from a registered schema as ksqlDB
// does (ConnectKsqlSchemaTranslator over Connect's AvroData):
//
//   - a record's fields become columns, names upper-cased unless
//     o.OriginalNames (nested STRUCT field names too);
//   - with o.Unwrapped, or when the schema is not a record, the whole
//     schema is one column, ROWKEY (o.Key) or ROWVAL;
//   - every column is nullable (SQL has no NOT NULL here), enums read as
//     STRING, fixed as BYTES, an Avro map or an array of Connect MapEntry
//     records as MAP, a union of several non-null types as a STRUCT with
//     one field per branch;
//   - a field of a type SQL cannot hold (null alone, a map keyed by a
//     non-string) is dropped, as ksqlDB drops it;
//   - a recursive schema is an error, as in ksqlDB.
func Columns(schema string, refs Refs, o Options) ([]types.Column, error) {
	s, err := parse(schema, refs)
	if err != nil {
		return nil, err
	}
	in := &inferrer{upper: !o.OriginalNames}
	ns := types.ValueNS
	if o.Key {
		ns = types.KeyNS
	}
	rec, isRecord := deref(s).(*hamba.RecordSchema)
	if o.Unwrapped || !isRecord {
		t, err := in.typ(s, o.single())
		if err != nil {
			return nil, err
		}
		if t == nil {
			return nil, fmt.Errorf("the Avro schema's type %s has no SQL type", s.Type())
		}
		return []types.Column{{Name: o.single(), Type: t, NS: ns}}, nil
	}
	fields, err := in.fields(rec, "")
	if err != nil {
		return nil, err
	}
	cols := make([]types.Column, len(fields))
	for i, f := range fields {
		cols[i] = types.Column{Name: f.Name, Type: f.Type, NS: ns}
	}
	return cols, nil
}

// inferrer walks a schema; stack holds the records being walked, to find
// recursion.
type inferrer struct {
	upper bool
	stack []string
}

// deref resolves a reference to a named type already defined.
func deref(s hamba.Schema) hamba.Schema {
	if r, ok := s.(*hamba.RefSchema); ok {
		return r.Schema()
	}
	return s
}

func (in *inferrer) name(n string) string {
	if in.upper {
		return strings.ToUpper(n)
	}
	return n
}

// fields infers a record's fields, dropping those of no SQL type.
func (in *inferrer) fields(rec *hamba.RecordSchema, path string) ([]types.Field, error) {
	for _, n := range in.stack {
		if n == rec.FullName() {
			return nil, fmt.Errorf("the Avro schema is recursive: record %s contains itself (at %s); ksqlDB does not support recursive schemas", n, path)
		}
	}
	in.stack = append(in.stack, rec.FullName())
	defer func() { in.stack = in.stack[:len(in.stack)-1] }()
	out := make([]types.Field, 0, len(rec.Fields()))
	for _, f := range rec.Fields() {
		t, err := in.typ(f.Type(), join(path, f.Name()))
		if err != nil {
			return nil, err
		}
		if t != nil {
			out = append(out, types.Field{Name: in.name(f.Name()), Type: t})
		}
	}
	return out, nil
}

// typ is the SQL type of s, or nil when SQL has none.
func (in *inferrer) typ(s hamba.Schema, path string) (*types.Type, error) {
	s = deref(s)
	switch s := s.(type) {
	case *hamba.PrimitiveSchema:
		return primitiveType(s), nil
	case *hamba.FixedSchema:
		if d, ok := s.Logical().(*hamba.DecimalLogicalSchema); ok {
			return types.DecimalOf(d.Precision(), d.Scale()), nil
		}
		return types.BytesType, nil
	case *hamba.EnumSchema:
		return types.StringType, nil
	case *hamba.UnionSchema:
		return in.union(s, path)
	case *hamba.ArraySchema:
		return in.array(s, path)
	case *hamba.MapSchema:
		v, err := in.typ(s.Values(), path+"[]")
		if v == nil || err != nil {
			return nil, err
		}
		return types.MapOf(types.StringType, v), nil
	case *hamba.RecordSchema:
		fs, err := in.fields(s, path)
		if err != nil {
			return nil, err
		}
		return types.StructOf(fs...), nil
	}
	return nil, nil
}

func primitiveType(s *hamba.PrimitiveSchema) *types.Type {
	logical := hamba.LogicalType("")
	if l := s.Logical(); l != nil {
		logical = l.Type()
	}
	switch s.Type() {
	case hamba.Boolean:
		return types.BooleanType
	case hamba.Int:
		return intType(logical)
	case hamba.Long:
		if logical == hamba.TimestampMillis {
			return types.TimestampType
		}
		return types.BigintType
	case hamba.Float, hamba.Double:
		return types.DoubleType
	case hamba.String:
		return types.StringType
	case hamba.Bytes:
		if d, ok := s.Logical().(*hamba.DecimalLogicalSchema); ok {
			return types.DecimalOf(d.Precision(), d.Scale())
		}
		return types.BytesType
	}
	return nil
}

func intType(logical hamba.LogicalType) *types.Type {
	switch logical {
	case hamba.Date:
		return types.DateType
	case hamba.TimeMillis:
		return types.TimeType
	}
	return types.IntegerType
}

// union: [null, T] is a nullable T; several non-null branches are a
// STRUCT of one field per branch (Connect's io.confluent.connect.avro.Union).
func (in *inferrer) union(u *hamba.UnionSchema, path string) (*types.Type, error) {
	branches := nonNull(u)
	if len(branches) == 1 {
		return in.typ(branches[0], path)
	}
	var fs []types.Field
	for _, b := range branches {
		t, err := in.typ(b, path)
		if err != nil {
			return nil, err
		}
		if t != nil {
			fs = append(fs, types.Field{Name: in.name(branchName(b)), Type: t})
		}
	}
	if len(fs) == 0 {
		return nil, nil
	}
	return types.StructOf(fs...), nil
}

func nonNull(u *hamba.UnionSchema) []hamba.Schema {
	out := make([]hamba.Schema, 0, len(u.Types()))
	for _, b := range u.Types() {
		if b.Type() != hamba.Null {
			out = append(out, b)
		}
	}
	return out
}

// branchName is the field a union branch becomes: a named type's simple
// name, else the Avro type name (AvroData's union member names).
func branchName(s hamba.Schema) string {
	if n, ok := deref(s).(hamba.NamedSchema); ok {
		return n.Name()
	}
	return string(s.Type())
}

// array is ARRAY<T>, or MAP when the items are Connect's MapEntry records.
func (in *inferrer) array(a *hamba.ArraySchema, path string) (*types.Type, error) {
	if k, v, ok := mapEntry(a); ok {
		kt, err := in.typ(k, path+".key")
		if err != nil || kt == nil || kt.Kind != types.KindString {
			return nil, err
		}
		vt, err := in.typ(v, path+"[]")
		if vt == nil || err != nil {
			return nil, err
		}
		return types.MapOf(types.StringType, vt), nil
	}
	e, err := in.typ(a.Items(), path+"[]")
	if e == nil || err != nil {
		return nil, err
	}
	return types.ArrayOf(e), nil
}

// mapEntry reports whether a is Connect's encoding of a map with a
// non-string or nullable key: an array of records marked MapEntry (or
// named io.confluent.connect.avro.MapEntry) with fields key and value.
func mapEntry(a *hamba.ArraySchema) (key, value hamba.Schema, ok bool) {
	rec, isRec := deref(a.Items()).(*hamba.RecordSchema)
	if !isRec || len(rec.Fields()) != 2 {
		return nil, nil, false
	}
	marked := rec.Prop("connect.internal.type") == "MapEntry" || rec.FullName() == "io.confluent.connect.avro.MapEntry"
	f := rec.Fields()
	if !marked || f[0].Name() != "key" || f[1].Name() != "value" {
		return nil, nil, false
	}
	return f[0].Type(), f[1].Type(), true
}
