package protobuf

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sqlstream/sqlstream/sql/format/internal/boxes"
	"github.com/sqlstream/sqlstream/sql/types"
)

// decodeState is what one Decode call shares between its slots: the
// payload as a string, made on the first string field, so that strings
// are substrings of it and a record costs one allocation for all of them
// (as the JSON codec does).
type decodeState struct {
	payload []byte
	text    string
	// arena boxes the record's strings and BIGINTs
	// (sql/format/internal/boxes): a chunk for all of them, not an
	// allocation each.
	arena boxes.Arena
	// scratch, set for DecodeScratch, takes the strings instead of text.
	scratch *Scratch
}

// Scratch keeps the strings and boxes of a decoder one task owns (used
// by one goroutine at a time) from record to record
// (Decoder.DecodeScratch): strings are copied into a slab shared with
// other records' instead of a copy of each record's whole payload, boxes
// go into an arena kept across records, so a record costs no allocation
// of its own but a share of a slab or chunk when one fills
// (sql/format/internal/boxes).
type Scratch struct {
	slab  boxes.Slab
	arena boxes.Arena
}

// str returns the string field b found at byte at of the payload; invalid
// UTF-8 is replaced by U+FFFD, as Java's ByteString.toStringUtf8 does.
func (st *decodeState) str(b []byte, at int) string {
	if !utf8.Valid(b) {
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	if st.scratch != nil {
		return st.scratch.slab.String(b)
	}
	if st.text == "" {
		st.text = string(st.payload)
	}
	return st.text[at : at+len(b)]
}

// decode reads one message from b (at byte base of the payload) into dst.
func (m *msgDecoder) decode(st *decodeState, b []byte, dst []any, base int) error {
	m.reset(dst)
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 {
			return &DecodeError{Offset: base + off, Msg: "bad field tag: " + protowire.ParseError(n).Error()}
		}
		off += n
		s := m.lookup(num)
		if s == nil {
			if n = protowire.ConsumeFieldValue(num, typ, b[off:]); n < 0 {
				return &DecodeError{Offset: base + off, Msg: fmt.Sprintf("bad unknown field %d: %v", num, protowire.ParseError(n))}
			}
			off += n
			continue
		}
		var err error
		if s.checkOnly {
			n, err = s.check(b[off:], typ, base+off)
		} else {
			n, err = s.read(st, b[off:], typ, dst, base+off)
		}
		if err != nil {
			return err
		}
		off += n
	}
	m.finish(dst)
	return nil
}

func (m *msgDecoder) reset(dst []any) {
	for i, s := range m.slots {
		if s.shape == shapeScalar && !s.presence && (m.unread == nil || !m.unread[i]) {
			dst[i] = s.zero
		} else {
			dst[i] = nil
		}
	}
}

func (m *msgDecoder) finish(dst []any) {
	for i, s := range m.slots {
		if m.unread != nil && m.unread[i] {
			dst[i] = nil // decoded to check it (not checkOnly), not read
			continue
		}
		if dst[i] != nil {
			continue
		}
		switch s.shape {
		case shapeList:
			dst[i] = []any{}
		case shapeMap:
			dst[i] = map[string]any{}
		}
	}
}

// read consumes one field's value at b and stores it.
func (s *slot) read(st *decodeState, b []byte, typ protowire.Type, dst []any, at int) (int, error) {
	switch s.shape {
	case shapeList:
		return s.readList(st, b, typ, dst, at)
	case shapeMap:
		return s.readEntry(st, b, typ, dst, at)
	}
	v, n, err := s.value(st, b, typ, at)
	if err != nil {
		return 0, err
	}
	if s.parent != nil {
		s.setMember(dst, v)
	} else {
		dst[s.idx] = v
	}
	return n, nil
}

// setMember stores a oneof member; the other members become NULL (the
// last member on the wire wins, as in protobuf).
func (s *slot) setMember(dst []any, v any) {
	p := s.parent
	sv, _ := dst[p.idx].(*types.StructValue)
	if sv == nil {
		sv = &types.StructValue{Type: p.target, Values: make([]any, len(p.sub.slots))}
		dst[p.idx] = sv
	} else {
		clear(sv.Values)
	}
	sv.Values[s.idx] = v
}

func (s *slot) readList(st *decodeState, b []byte, typ protowire.Type, dst []any, at int) (int, error) {
	list, _ := dst[s.idx].([]any)
	if typ != protowire.BytesType || !packable(s.kind) {
		v, n, err := s.value(st, b, typ, at)
		dst[s.idx] = append(list, v)
		return n, err
	}
	packed, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return 0, s.errAt(at, "truncated packed repeated field: %v", protowire.ParseError(n))
	}
	at += n - len(packed)
	want := wireType(s.kind)
	for len(packed) > 0 {
		v, m, err := s.value(st, packed, want, at)
		if err != nil {
			return 0, err
		}
		list = append(list, v)
		packed, at = packed[m:], at+m
	}
	dst[s.idx] = list
	return n, nil
}

func (s *slot) readEntry(st *decodeState, b []byte, typ protowire.Type, dst []any, at int) (int, error) {
	if typ != protowire.BytesType {
		return 0, s.errAt(at, "map entry has wire type %d, want %d (length-delimited)", typ, protowire.BytesType)
	}
	entry, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return 0, s.errAt(at, "truncated map entry: %v", protowire.ParseError(n))
	}
	var kv [2]any
	if err := s.sub.decode(st, entry, kv[:], at+n-len(entry)); err != nil {
		return 0, err
	}
	m, _ := dst[s.idx].(map[string]any)
	if m == nil {
		m = map[string]any{}
		dst[s.idx] = m
	}
	key, _ := kv[0].(string) // an absent wrapped key is the empty string
	m[key] = kv[1]
	return n, nil
}

func (s *slot) errAt(at int, format string, args ...any) error {
	return &DecodeError{Path: s.path, Offset: at, Msg: fmt.Sprintf(format, args...)}
}

// value decodes one value of the slot's kind.
func (s *slot) value(st *decodeState, b []byte, typ protowire.Type, at int) (any, int, error) {
	if want := wireType(s.kind); typ != want {
		return nil, 0, s.errAt(at, "wire type %d, want %d for %s", typ, want, s.kind)
	}
	var (
		v   any
		n   int
		err error
	)
	switch typ {
	case protowire.VarintType:
		var x uint64
		if x, n = protowire.ConsumeVarint(b); n >= 0 {
			if s.kind == protoreflect.Int64Kind && s.vt.Kind == types.KindBigint {
				v = boxes.Int(&st.arena, boxes.TypeWord(int64(0)), int64(x)) // fromVarint's, boxed in the arena
			} else {
				v, err = s.fromVarint(x)
			}
		}
	case protowire.Fixed32Type:
		var x uint32
		if x, n = protowire.ConsumeFixed32(b); n >= 0 {
			v, err = s.fromFixed32(x)
		}
	case protowire.Fixed64Type:
		var x uint64
		if x, n = protowire.ConsumeFixed64(b); n >= 0 {
			v, err = s.fromFixed64(x)
		}
	default:
		var x []byte
		if x, n = protowire.ConsumeBytes(b); n >= 0 {
			if s.kind == protoreflect.StringKind {
				v = boxes.String(&st.arena, boxes.TypeWord(""), st.str(x, at+n-len(x))) // fromBytes', boxed in the arena
			} else {
				v, err = s.fromBytes(st, x, at+n-len(x))
			}
		}
	}
	if n < 0 {
		return nil, 0, s.errAt(at, "truncated %s: %v", s.kind, protowire.ParseError(n))
	}
	if err != nil {
		var de *DecodeError
		if errors.As(err, &de) {
			return nil, 0, err
		}
		return nil, 0, s.errAt(at, "%v", err)
	}
	return v, n, nil
}

func (s *slot) fromVarint(x uint64) (any, error) {
	switch s.kind {
	case protoreflect.BoolKind:
		return x != 0, nil
	case protoreflect.EnumKind:
		return s.enumValue(int32(x))
	case protoreflect.Int32Kind:
		return s.fromInt(int64(int32(x)))
	case protoreflect.Uint32Kind:
		return s.fromInt(int64(uint32(x)))
	case protoreflect.Sint32Kind:
		return s.fromInt(int64(int32(protowire.DecodeZigZag(x & math.MaxUint32))))
	case protoreflect.Sint64Kind:
		return s.fromInt(protowire.DecodeZigZag(x))
	case protoreflect.Uint64Kind:
		return s.fromUint(x)
	}
	return s.fromInt(int64(x))
}

func (s *slot) fromFixed32(x uint32) (any, error) {
	switch s.kind {
	case protoreflect.FloatKind:
		return float64(math.Float32frombits(x)), nil
	case protoreflect.Sfixed32Kind:
		return s.fromInt(int64(int32(x)))
	}
	return s.fromInt(int64(x))
}

func (s *slot) fromFixed64(x uint64) (any, error) {
	switch s.kind {
	case protoreflect.DoubleKind:
		return math.Float64frombits(x), nil
	case protoreflect.Sfixed64Kind:
		return s.fromInt(int64(x))
	}
	return s.fromUint(x)
}

func (s *slot) fromUint(x uint64) (any, error) {
	if x > math.MaxInt64 {
		if s.vt.Kind == types.KindDouble {
			return float64(x), nil
		}
		return nil, fmt.Errorf("value %d does not fit %s", x, s.vt)
	}
	return s.fromInt(int64(x))
}

func (s *slot) fromInt(i int64) (any, error) {
	switch s.vt.Kind {
	case types.KindInteger:
		if i < math.MinInt32 || i > math.MaxInt32 {
			return nil, fmt.Errorf("value %d does not fit INTEGER", i)
		}
		return int32(i), nil
	case types.KindDouble:
		return float64(i), nil
	}
	return i, nil
}

func (s *slot) enumValue(n int32) (any, error) {
	if s.vt.Kind != types.KindString {
		return s.fromInt(int64(n))
	}
	if v := s.enum.ByNumber(protoreflect.EnumNumber(n)); v != nil {
		return string(v.Name()), nil
	}
	return strconv.Itoa(int(n)), nil
}

// fromBytes decodes a length-delimited value starting at byte at.
func (s *slot) fromBytes(st *decodeState, b []byte, at int) (any, error) {
	switch s.kind {
	case protoreflect.StringKind:
		return st.str(b, at), nil
	case protoreflect.BytesKind:
		return append([]byte{}, b...), nil
	}
	switch s.wk {
	case wkTimestamp:
		return s.timestamp(b, at)
	case wkDate:
		return s.date(b, at)
	case wkTime:
		return s.timeOfDay(b, at)
	case wkDecimal:
		return s.decimal(b, at)
	case wkWrapper:
		var v [1]any
		err := s.sub.decode(st, b, v[:], at)
		return v[0], err
	}
	vals := make([]any, len(s.sub.slots))
	if err := s.sub.decode(st, b, vals, at); err != nil {
		return nil, err
	}
	return &types.StructValue{Type: s.vt, Values: vals}, nil
}

// varints reads the varint fields 1…len(out) of a small well-known
// message; other fields are skipped.
func (s *slot) varints(b []byte, at int, out []int64) error {
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 {
			return s.errAt(at+off, "bad field tag in %s: %v", s.wkName(), protowire.ParseError(n))
		}
		off += n
		if typ == protowire.VarintType && num >= 1 && int(num) <= len(out) {
			x, m := protowire.ConsumeVarint(b[off:])
			if m < 0 {
				return s.errAt(at+off, "truncated %s: %v", s.wkName(), protowire.ParseError(m))
			}
			out[num-1], off = int64(x), off+m
			continue
		}
		if n = protowire.ConsumeFieldValue(num, typ, b[off:]); n < 0 {
			return s.errAt(at+off, "bad field %d in %s: %v", num, s.wkName(), protowire.ParseError(n))
		}
		off += n
	}
	return nil
}

func (s *slot) wkName() string { return string(s.fd.Message().FullName()) }

func (s *slot) timestamp(b []byte, at int) (any, error) {
	var f [2]int64
	if err := s.varints(b, at, f[:]); err != nil {
		return nil, err
	}
	return types.Timestamp(f[0]*1000 + int64(int32(f[1]))/1e6), nil
}

func (s *slot) date(b []byte, at int) (any, error) {
	var f [3]int64
	if err := s.varints(b, at, f[:]); err != nil {
		return nil, err
	}
	d := time.Date(int(int32(f[0])), time.Month(int32(f[1])), int(int32(f[2])), 0, 0, 0, 0, time.UTC)
	return types.Date(d.Unix() / 86400), nil
}

func (s *slot) timeOfDay(b []byte, at int) (any, error) {
	var f [4]int64
	if err := s.varints(b, at, f[:]); err != nil {
		return nil, err
	}
	ms := int64(int32(f[0]))*3_600_000 + int64(int32(f[1]))*60_000 + int64(int32(f[2]))*1000 + int64(int32(f[3]))/1e6
	return types.Time(ms), nil
}

// decimal reads confluent.type.Decimal (value: unscaled two's-complement
// big-endian bytes, scale) and rescales it to the column's scale.
func (s *slot) decimal(b []byte, at int) (any, error) {
	var unscaled []byte
	var scale int32
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 {
			return nil, s.errAt(at+off, "bad field tag in confluent.type.Decimal: %v", protowire.ParseError(n))
		}
		off += n
		switch {
		case num == 1 && typ == protowire.BytesType:
			unscaled, n = protowire.ConsumeBytes(b[off:])
		case num == 3 && typ == protowire.VarintType:
			var x uint64
			x, n = protowire.ConsumeVarint(b[off:])
			scale = int32(x)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b[off:])
		}
		if n < 0 {
			return nil, s.errAt(at+off, "bad field %d in confluent.type.Decimal: %v", num, protowire.ParseError(n))
		}
		off += n
	}
	d, err := rescale(decimalFromBytes(unscaled, scale), s.vt)
	if err != nil {
		return nil, s.errAt(at, "%v", err)
	}
	return d, nil
}

func decimalFromBytes(b []byte, scale int32) *apd.Decimal {
	if len(b) <= 8 {
		var v int64
		for i, c := range b {
			if i == 0 {
				v = int64(int8(c))
			} else {
				v = v<<8 | int64(c)
			}
		}
		return apd.New(v, -scale)
	}
	bi := new(big.Int).SetBytes(b)
	if b[0]&0x80 != 0 {
		bi.Sub(bi, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return apd.NewWithBigInt(new(apd.BigInt).SetMathBigInt(bi), -scale)
}

// rescale returns d at t's scale (rounding half up, as ksqlDB does), or an
// error when it needs more than t's precision.
func rescale(d *apd.Decimal, t *types.Type) (*apd.Decimal, error) {
	if d.Exponent == int32(-t.Scale) && d.NumDigits() <= int64(t.Precision) {
		return d, nil
	}
	if d.IsZero() {
		return apd.New(0, int32(-t.Scale)), nil
	}
	if intDigits := d.NumDigits() + int64(d.Exponent); intDigits > int64(t.Precision-t.Scale) {
		return nil, fmt.Errorf("decimal %s does not fit %s", d.Text('f'), t)
	}
	ctx := apd.Context{Precision: uint32(max(t.Precision, 1)), MaxExponent: apd.MaxExponent,
		MinExponent: apd.MinExponent, Traps: apd.DefaultTraps, Rounding: apd.RoundHalfUp}
	out := new(apd.Decimal)
	if _, err := ctx.Quantize(out, d, int32(-t.Scale)); err != nil {
		return nil, fmt.Errorf("decimal %s does not fit %s", d.Text('f'), t)
	}
	if out.IsZero() {
		out.Negative = false
	}
	return out, nil
}
