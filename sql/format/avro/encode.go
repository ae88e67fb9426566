package avro

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"github.com/cockroachdb/apd/v3"
	hamba "github.com/hamba/avro/v2"
	"github.com/sqlstream/sqlstream/sql/types"
)

// encFn appends the encoding of one value.
type encFn func(buf []byte, v any) ([]byte, error)

// put is one field of a record schema: the value of slot src, or the
// field's default (def) when no column feeds it (src < 0) or, for a field
// whose type cannot hold null, when the column is NULL (as Kafka
// Connect's AvroData writes a NULL into a field with a default).
type put struct {
	src int
	enc encFn
	def []byte
}

type rowEncoder struct {
	prefix []byte // the record's branch of a nullable root union
	puts   []put
	single encFn
	ncols  int
}

var _ Encoder = (*rowEncoder)(nil)

// NewEncoder compiles an encoder of cols into schema: normally the one
// Schema returned and the registry stored, but any schema whose fields
// the columns can fill (matched by name, exactly, else ignoring case); a
// field no column feeds takes its default, and a field without one is an
// error naming it.
func NewEncoder(schema string, refs Refs, cols []types.Column, o Options) (Encoder, error) {
	s, err := parse(schema, refs)
	if err != nil {
		return nil, err
	}
	c := &compiler{}
	if o.Unwrapped {
		if len(cols) != 1 {
			return nil, fmt.Errorf("an unwrapped Avro value encodes exactly one column, got %d", len(cols))
		}
		fn, err := c.enc(s, cols[0].Type, cols[0].Name)
		if err != nil {
			return nil, err
		}
		return &rowEncoder{single: fn, ncols: 1}, nil
	}
	rec, nullable, ok := rootRecord(s)
	if !ok {
		return nil, fmt.Errorf("the Avro schema is a %s, not a record: write a single column with WRAP_SINGLE_VALUE=false", s.Type())
	}
	fields := make([]types.Field, len(cols))
	for i, col := range cols {
		fields[i] = types.Field{Name: col.Name, Type: col.Type}
	}
	puts, err := c.puts(rec, fields, "")
	if err != nil {
		return nil, err
	}
	e := &rowEncoder{puts: puts, ncols: len(cols)}
	if nullable {
		// A row is never the null branch: a deleted row is a tombstone.
		for i, b := range s.(*hamba.UnionSchema).Types() {
			if b.Type() != hamba.Null {
				e.prefix = appendLong(nil, int64(i))
			}
		}
	}
	return e, nil
}

// Encode implements Encoder.
func (e *rowEncoder) Encode(buf []byte, vals []any) ([]byte, error) {
	if len(vals) != e.ncols {
		return buf, fmt.Errorf("avro: encoding %d values for %d columns", len(vals), e.ncols)
	}
	if e.single != nil {
		return e.single(buf, vals[0])
	}
	return runPuts(append(buf, e.prefix...), e.puts, vals)
}

func runPuts(buf []byte, puts []put, vals []any) ([]byte, error) {
	var err error
	for i := range puts {
		p := &puts[i]
		if p.src < 0 || (vals[p.src] == nil && p.def != nil) {
			buf = append(buf, p.def...)
			continue
		}
		if buf, err = p.enc(buf, vals[p.src]); err != nil {
			return buf, err
		}
	}
	return buf, nil
}

func (c *compiler) puts(rec *hamba.RecordSchema, fields []types.Field, path string) ([]put, error) {
	if err := c.push(rec, path); err != nil {
		return nil, err
	}
	defer c.pop()
	puts := make([]put, len(rec.Fields()))
	for i, f := range rec.Fields() {
		p := put{src: fieldIndex(fields, f.Name())}
		var err error
		if p.src < 0 {
			p.def, err = defaultBytes(f, join(path, f.Name()))
		} else {
			p.enc, err = c.enc(f.Type(), fields[p.src].Type, join(path, fields[p.src].Name))
			if err == nil && f.HasDefault() && !holdsNull(f.Type()) {
				p.def, err = defaultBytes(f, join(path, f.Name()))
			}
		}
		if err != nil {
			return nil, err
		}
		puts[i] = p
	}
	return puts, nil
}

// holdsNull reports whether Avro type s can be null (null, or a union
// with a null branch).
func holdsNull(s hamba.Schema) bool {
	s = deref(s)
	if u, ok := s.(*hamba.UnionSchema); ok {
		for _, b := range u.Types() {
			if b.Type() == hamba.Null {
				return true
			}
		}
		return false
	}
	return s.Type() == hamba.Null
}

// defaultBytes encodes a field's default once, with hamba's encoder.
func defaultBytes(f *hamba.Field, path string) ([]byte, error) {
	if !f.HasDefault() {
		return nil, fmt.Errorf("the Avro schema's field %s has no default and no column to fill it", path)
	}
	b, err := hamba.Marshal(f.Type(), f.Default())
	if err != nil {
		return nil, fmt.Errorf("the Avro schema's field %s: cannot encode its default: %w", path, err)
	}
	return b, nil
}

// enc compiles an encoder of SQL type t into Avro type s.
func (c *compiler) enc(s hamba.Schema, t *types.Type, path string) (encFn, error) {
	s = deref(s)
	switch s := s.(type) {
	case *hamba.UnionSchema:
		return c.encUnion(s, t, path)
	case *hamba.NullSchema:
		return func(buf []byte, v any) ([]byte, error) { return encNull(buf, v, path) }, nil
	case *hamba.PrimitiveSchema:
		return primitiveEnc(s, t, path)
	case *hamba.FixedSchema:
		return fixedEnc(s, t, path)
	case *hamba.EnumSchema:
		return enumEnc(s, t, path)
	case *hamba.ArraySchema:
		return c.encArray(s, t, path)
	case *hamba.MapSchema:
		return c.encMap(s, t, path)
	case *hamba.RecordSchema:
		return c.encRecord(s, t, path)
	}
	return nil, encMismatch(s, t, path)
}

func encMismatch(s hamba.Schema, t *types.Type, path string) error {
	return fmt.Errorf("column %s: %s cannot be written as the Avro type %s", path, t, typeName(s))
}

func encNull(buf []byte, v any, path string) ([]byte, error) {
	if v != nil {
		return buf, fmt.Errorf("avro: column %s: %v written where the schema allows only null", path, v)
	}
	return buf, nil
}

// encUnion writes NULL as the null branch and a value as the first
// branch that takes the column's type.
func (c *compiler) encUnion(u *hamba.UnionSchema, t *types.Type, path string) (encFn, error) {
	if len(nonNull(u)) > 1 && t.Kind == types.KindStruct {
		if fn, err := c.encMembers(u, t, path); err == nil {
			return fn, nil
		}
	}
	null, branch, exact := -1, -1, false
	var fn encFn
	for i, b := range u.Types() {
		if b.Type() == hamba.Null {
			if null < 0 {
				null = i
			}
			continue
		}
		if exact {
			continue
		}
		// The first branch of the column's own Avro type wins, else the
		// first that takes it (a BIGINT into [int, long] is a long).
		if f, err := c.enc(b, t, path); err == nil && (branch < 0 || sameKind(b, t)) {
			branch, fn, exact = i, f, sameKind(b, t)
		}
	}
	if branch < 0 {
		return nil, encMismatch(u, t, path)
	}
	nullIdx, idx := appendLong(nil, int64(null)), appendLong(nil, int64(branch))
	return func(buf []byte, v any) ([]byte, error) {
		if v == nil {
			if null < 0 {
				return buf, fmt.Errorf("avro: column %s is NULL but its Avro type %s has no null branch", path, typeName(u))
			}
			return append(buf, nullIdx...), nil
		}
		return fn(append(buf, idx...), v)
	}, nil
}

// encMembers writes a STRUCT of one field per union branch (the type
// Columns infers for a union of several non-null types) as the branch of
// its first non-null field; a struct of all nulls is the null branch.
func (c *compiler) encMembers(u *hamba.UnionSchema, t *types.Type, path string) (encFn, error) {
	null := -1
	fields := make([]encFn, len(t.Fields))
	index := make([][]byte, len(t.Fields))
	for i, b := range u.Types() {
		if b.Type() == hamba.Null {
			null = i
			continue
		}
		f := t.Field(branchName(b))
		if f < 0 {
			return nil, fmt.Errorf("column %s: the union branch %s has no field in %s", path, branchName(b), t)
		}
		fn, err := c.enc(b, t.Fields[f].Type, join(path, t.Fields[f].Name))
		if err != nil {
			return nil, err
		}
		fields[f], index[f] = fn, appendLong(nil, int64(i))
	}
	return func(buf []byte, v any) ([]byte, error) {
		if sv, ok := v.(*types.StructValue); ok && len(sv.Values) == len(fields) {
			for i, fv := range sv.Values {
				if fv != nil && fields[i] != nil {
					return fields[i](append(buf, index[i]...), fv)
				}
			}
		} else if v != nil {
			return buf, wrongValue(v, "a union's struct", path)
		}
		if null < 0 {
			return buf, fmt.Errorf("avro: column %s has no value for any branch of its union, which has no null branch", path)
		}
		return appendLong(buf, int64(null)), nil
	}, nil
}

// sameKind reports whether b is the Avro type Schema prints for t.
func sameKind(b hamba.Schema, t *types.Type) bool {
	want := map[types.Kind]hamba.Type{
		types.KindBoolean: hamba.Boolean, types.KindInteger: hamba.Int, types.KindBigint: hamba.Long,
		types.KindDouble: hamba.Double, types.KindString: hamba.String, types.KindBytes: hamba.Bytes,
		types.KindDecimal: hamba.Bytes, types.KindDate: hamba.Int, types.KindTime: hamba.Int,
		types.KindTimestamp: hamba.Long, types.KindArray: hamba.Array, types.KindStruct: hamba.Record,
	}[t.Kind]
	if t.Kind == types.KindMap {
		return b.Type() == hamba.Map || b.Type() == hamba.Array
	}
	return deref(b).Type() == want
}

func notNull(v any, path string) error {
	if v == nil {
		return fmt.Errorf("avro: column %s is NULL but its Avro type is not nullable", path)
	}
	return nil
}

func wrongValue(v any, t string, path string) error {
	if v == nil {
		return notNull(v, path)
	}
	return fmt.Errorf("avro: column %s: a %T cannot be written as %s", path, v, t)
}

// primitiveEnc writes SQL values as an Avro primitive; the pairs are
// the reverse of primitiveDec's.
func primitiveEnc(s *hamba.PrimitiveSchema, t *types.Type, path string) (encFn, error) {
	logical := hamba.LogicalType("")
	if l := s.Logical(); l != nil {
		logical = l.Type()
	}
	var fn encFn
	switch s.Type() {
	case hamba.Boolean:
		if t.Kind == types.KindBoolean {
			fn = boolEnc(path)
		}
	case hamba.Int:
		if intConv(logical, t.Kind) != nil && t.Kind != types.KindBigint && t.Kind != types.KindDouble {
			fn = intEnc(path)
		}
	case hamba.Long:
		fn = longEnc(logical, t, path)
	case hamba.Float, hamba.Double:
		if t.Kind == types.KindDouble || t.Kind == types.KindInteger || t.Kind == types.KindBigint {
			fn = floatEnc(s.Type() == hamba.Float, path)
		}
	case hamba.String, hamba.Bytes:
		fn = bytesEnc(s, t, path)
	case hamba.Null:
		fn = func(buf []byte, v any) ([]byte, error) { return encNull(buf, v, path) }
	}
	if fn == nil {
		return nil, encMismatch(s, t, path)
	}
	return fn, nil
}

func boolEnc(path string) encFn {
	return func(buf []byte, v any) ([]byte, error) {
		b, ok := v.(bool)
		if !ok {
			return buf, wrongValue(v, "boolean", path)
		}
		if b {
			return append(buf, 1), nil
		}
		return append(buf, 0), nil
	}
}

func intEnc(path string) encFn {
	return func(buf []byte, v any) ([]byte, error) {
		switch v := v.(type) {
		case int32:
			return appendLong(buf, int64(v)), nil
		case types.Date:
			return appendLong(buf, int64(v)), nil
		case types.Time:
			return appendLong(buf, int64(v)), nil
		}
		return buf, wrongValue(v, "int", path)
	}
}

// longEnc writes BIGINT, INTEGER and TIMESTAMP (and TIME as time-micros).
func longEnc(logical hamba.LogicalType, t *types.Type, path string) encFn {
	mult := int64(1)
	switch {
	case t.Kind == types.KindTimestamp && (logical == hamba.TimestampMicros || logical == hamba.LocalTimestampMicros):
		mult = 1000
	case t.Kind == types.KindTime && logical == hamba.TimeMicros:
		mult = 1000
	case t.Kind == types.KindTimestamp && logical != hamba.TimeMicros && logical != hamba.TimeMillis:
	case (t.Kind == types.KindBigint || t.Kind == types.KindInteger) && logical == "":
	default:
		return nil
	}
	return func(buf []byte, v any) ([]byte, error) {
		switch v := v.(type) {
		case int64:
			return appendLong(buf, v*mult), nil
		case int32:
			return appendLong(buf, int64(v)*mult), nil
		case types.Timestamp:
			return appendLong(buf, int64(v)*mult), nil
		case types.Time:
			return appendLong(buf, int64(v)*mult), nil
		}
		return buf, wrongValue(v, "long", path)
	}
}

func floatEnc(single bool, path string) encFn {
	return func(buf []byte, v any) ([]byte, error) {
		var f float64
		switch v := v.(type) {
		case float64:
			f = v
		case int32:
			f = float64(v)
		case int64:
			f = float64(v)
		default:
			return buf, wrongValue(v, "a floating-point number", path)
		}
		if single {
			return binary.LittleEndian.AppendUint32(buf, math.Float32bits(float32(f))), nil
		}
		return binary.LittleEndian.AppendUint64(buf, math.Float64bits(f)), nil
	}
}

func bytesEnc(s *hamba.PrimitiveSchema, t *types.Type, path string) encFn {
	if d, ok := s.Logical().(*hamba.DecimalLogicalSchema); ok {
		if t.Kind != types.KindDecimal {
			return nil
		}
		return decimalEnc(d.Scale(), 0, path)
	}
	if t.Kind != types.KindString && t.Kind != types.KindBytes {
		return nil
	}
	return func(buf []byte, v any) ([]byte, error) {
		switch v := v.(type) {
		case string:
			return appendString(buf, v), nil
		case []byte:
			return appendBytes(buf, v), nil
		}
		return buf, wrongValue(v, "string or bytes", path)
	}
}

func fixedEnc(s *hamba.FixedSchema, t *types.Type, path string) (encFn, error) {
	size := s.Size()
	if d, ok := s.Logical().(*hamba.DecimalLogicalSchema); ok && t.Kind == types.KindDecimal {
		return decimalEnc(d.Scale(), size, path), nil
	}
	if t.Kind != types.KindBytes {
		return nil, encMismatch(s, t, path)
	}
	return func(buf []byte, v any) ([]byte, error) {
		b, ok := v.([]byte)
		if !ok {
			return buf, wrongValue(v, "fixed", path)
		}
		if len(b) != size {
			return buf, fmt.Errorf("avro: column %s: %d bytes written as a fixed of %d", path, len(b), size)
		}
		return append(buf, b...), nil
	}, nil
}

func enumEnc(s *hamba.EnumSchema, t *types.Type, path string) (encFn, error) {
	if t.Kind != types.KindString {
		return nil, encMismatch(s, t, path)
	}
	index := make(map[string]int64, len(s.Symbols()))
	for i, sym := range s.Symbols() {
		index[sym] = int64(i)
	}
	return func(buf []byte, v any) ([]byte, error) {
		str, ok := v.(string)
		if !ok {
			return buf, wrongValue(v, "enum", path)
		}
		i, ok := index[str]
		if !ok {
			return buf, fmt.Errorf("avro: column %s: %q is not a symbol of enum %s", path, str, s.FullName())
		}
		return appendLong(buf, i), nil
	}, nil
}

// decimalEnc writes a DECIMAL at the schema's scale as big-endian two's
// complement: length-prefixed bytes, or sign-extended to size for a fixed.
func decimalEnc(scale, size int, path string) encFn {
	return func(buf []byte, v any) ([]byte, error) {
		d, ok := v.(*apd.Decimal)
		if !ok {
			return buf, wrongValue(v, "decimal", path)
		}
		b, err := twosComplement(d, scale)
		if err != nil {
			return buf, fmt.Errorf("avro: column %s: %w", path, err)
		}
		if size == 0 {
			return appendBytes(buf, b), nil
		}
		if len(b) > size {
			return buf, fmt.Errorf("avro: column %s: decimal %s needs %d bytes, the fixed has %d", path, d, len(b), size)
		}
		pad := byte(0)
		if len(b) > 0 && b[0]&0x80 != 0 {
			pad = 0xff
		}
		for i := len(b); i < size; i++ {
			buf = append(buf, pad)
		}
		return append(buf, b...), nil
	}
}

// twosComplement is d's unscaled value at scale, in the fewest bytes.
func twosComplement(d *apd.Decimal, scale int) ([]byte, error) {
	if d.Form != apd.Finite {
		return nil, fmt.Errorf("decimal %s is not a finite number", d)
	}
	q := d
	if -int(d.Exponent) != scale {
		q = new(apd.Decimal)
		ctx := apd.BaseContext.WithPrecision(uint32(max(int(d.NumDigits())+scale+1, 1)))
		if _, err := ctx.Quantize(q, d, int32(-scale)); err != nil {
			return nil, fmt.Errorf("decimal %s at scale %d: %v", d, scale, err)
		}
	}
	n := q.Coeff.MathBigInt()
	if q.Negative {
		n.Neg(n)
	}
	return bigTwos(n), nil
}

func bigTwos(n *big.Int) []byte {
	if n.Sign() >= 0 {
		b := n.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -n-1 in bytes, inverted, is n's two's complement.
	m := new(big.Int).Not(n)
	b := m.Bytes()
	for i := range b {
		b[i] = ^b[i]
	}
	if len(b) == 0 || b[0]&0x80 == 0 {
		b = append([]byte{0xff}, b...)
	}
	return b
}

func (c *compiler) encArray(s *hamba.ArraySchema, t *types.Type, path string) (encFn, error) {
	if k, v, ok := mapEntry(s); ok && t.Kind == types.KindMap {
		return c.encEntries(k, v, t, path)
	}
	if t.Kind != types.KindArray {
		return nil, encMismatch(s, t, path)
	}
	elem, err := c.enc(s.Items(), t.Elem, path+"[]")
	if err != nil {
		return nil, err
	}
	return func(buf []byte, v any) ([]byte, error) {
		a, ok := v.([]any)
		if !ok {
			return buf, wrongValue(v, "array", path)
		}
		if len(a) > 0 {
			buf = appendLong(buf, int64(len(a)))
			var err error
			for _, e := range a {
				if buf, err = elem(buf, e); err != nil {
					return buf, err
				}
			}
		}
		return append(buf, 0), nil
	}, nil
}

func (c *compiler) encMap(s *hamba.MapSchema, t *types.Type, path string) (encFn, error) {
	if t.Kind != types.KindMap {
		return nil, encMismatch(s, t, path)
	}
	val, err := c.enc(s.Values(), t.Elem, path+"[]")
	if err != nil {
		return nil, err
	}
	return mapWriter(path, func(buf []byte, k string, v any) ([]byte, error) {
		return val(appendString(buf, k), v)
	}), nil
}

// encEntries writes a MAP as Connect's array of key/value records.
func (c *compiler) encEntries(k, v hamba.Schema, t *types.Type, path string) (encFn, error) {
	key, err := c.enc(k, types.StringType, path+".key")
	if err != nil {
		return nil, err
	}
	val, err := c.enc(v, t.Elem, path+"[]")
	if err != nil {
		return nil, err
	}
	return mapWriter(path, func(buf []byte, k string, v any) ([]byte, error) {
		buf, err := key(buf, k)
		if err != nil {
			return buf, err
		}
		return val(buf, v)
	}), nil
}

// mapWriter writes a map's entries as one block, keys in sorted order so
// that equal maps encode to equal bytes (keys of compacted topics and
// changelogs compare as bytes).
func mapWriter(path string, entry func([]byte, string, any) ([]byte, error)) encFn {
	return func(buf []byte, v any) ([]byte, error) {
		m, ok := v.(map[string]any)
		if !ok {
			return buf, wrongValue(v, "map", path)
		}
		if len(m) > 0 {
			buf = appendLong(buf, int64(len(m)))
			var err error
			for _, k := range sortedKeys(m) {
				if buf, err = entry(buf, k, m[k]); err != nil {
					return buf, err
				}
			}
		}
		return append(buf, 0), nil
	}
}

func (c *compiler) encRecord(s *hamba.RecordSchema, t *types.Type, path string) (encFn, error) {
	if t.Kind != types.KindStruct {
		return nil, encMismatch(s, t, path)
	}
	puts, err := c.puts(s, t.Fields, path)
	if err != nil {
		return nil, err
	}
	return func(buf []byte, v any) ([]byte, error) {
		sv, ok := v.(*types.StructValue)
		if !ok {
			return buf, wrongValue(v, "record", path)
		}
		if len(sv.Values) != len(t.Fields) {
			return buf, fmt.Errorf("avro: column %s: a struct of %d fields written as %s", path, len(sv.Values), t)
		}
		return runPuts(buf, puts, sv.Values)
	}, nil
}
