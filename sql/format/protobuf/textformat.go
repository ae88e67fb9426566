package protobuf

import (
	"sort"
	"strconv"
	"time"
	"unicode/utf16"

	"github.com/cockroachdb/apd/v3"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sqlstream/sqlstream/sql/format/internal/javafloat"
	"github.com/sqlstream/sqlstream/sql/types"
)

// TextPrinter prints a row as Java protobuf's TextFormat prints the
// message ksqlDB would serialize (the rows of a REST pull query with
// protobuf output): fields in number order, proto3 defaults left out,
// nested messages as "NAME {" blocks indented by two spaces, strings and
// bytes with TextFormat's escapes (non-ASCII as octal), doubles as Java's
// Double.toString. Map entries come in java.util.HashMap order, which is
// the order ksqlDB's maps iterate in. protobuf-go's prototext is
// deliberately unstable, hence this printer.
type TextPrinter interface {
	AppendText(buf []byte, vals []any) ([]byte, error)
}

// NewTextPrinter compiles a printer of cols in the message o.FullName of
// schema, as NewEncoder would write them.
func NewTextPrinter(schema string, refs Refs, cols []types.Column, o Options) (TextPrinter, error) {
	e, err := NewEncoder(schema, refs, cols, o)
	if err != nil {
		return nil, err
	}
	return textPrinter{m: e.(*encoder).m}, nil
}

type textPrinter struct{ m *msgEncoder }

func (p textPrinter) AppendText(buf []byte, vals []any) ([]byte, error) {
	if len(vals) != p.m.n {
		return buf, &EncodeError{Msg: "wrong number of values"}
	}
	return p.m.text(buf, vals, "")
}

func (m *msgEncoder) text(buf []byte, vals []any, indent string) ([]byte, error) {
	var err error
	for _, fe := range m.fields {
		v := vals[fe.idx]
		if v == nil {
			continue
		}
		switch {
		case fe.oneof:
			sv, ok := v.(*types.StructValue)
			if !ok {
				return buf, fe.errf("want a STRUCT, got %T", v)
			}
			buf, err = fe.sub.text(buf, sv.Values, indent)
		case fe.isMap:
			buf, err = fe.textMap(buf, v, indent)
		case fe.list:
			list, ok := v.([]any)
			if !ok {
				return buf, fe.errf("want an ARRAY value, got %T", v)
			}
			for _, e := range list {
				if buf, err = fe.textValue(buf, orZero(e, fe.target), indent); err != nil {
					return buf, err
				}
			}
		default:
			if !fe.presence && fe.kind != protoreflect.MessageKind && isDefault(v) {
				continue
			}
			buf, err = fe.textValue(buf, v, indent)
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

func (fe *fieldEnc) name() string { return string(fe.fd.Name()) }

// textValue prints one "name: value" line or "name {…}" block.
func (fe *fieldEnc) textValue(buf []byte, v any, indent string) ([]byte, error) {
	if fe.kind == protoreflect.MessageKind {
		buf = append(buf, indent+fe.name()+" {\n"...)
		buf, err := fe.textMessage(buf, v, indent+"  ")
		return append(buf, indent+"}\n"...), err
	}
	buf = append(buf, indent+fe.name()+": "...)
	buf, err := fe.textScalar(buf, v)
	return append(buf, '\n'), err
}

func (fe *fieldEnc) textScalar(buf []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case bool:
		return strconv.AppendBool(buf, x), nil
	case string:
		if fe.kind == protoreflect.EnumKind {
			return append(buf, x...), nil
		}
		return appendEscaped(buf, []byte(x)), nil
	case []byte:
		return appendEscaped(buf, x), nil
	case float64:
		if fe.kind == protoreflect.FloatKind {
			return javafloat.Append(buf, x, 32), nil
		}
		return javafloat.Append(buf, x, 64), nil
	}
	i, ok := toInt(v)
	if !ok {
		return buf, fe.errf("cannot print %T", v)
	}
	if fe.kind == protoreflect.EnumKind {
		if ev := fe.enum.Values().ByNumber(protoreflect.EnumNumber(i)); ev != nil {
			return append(buf, ev.Name()...), nil
		}
	}
	return strconv.AppendInt(buf, i, 10), nil
}

func (fe *fieldEnc) textMessage(buf []byte, v any, indent string) ([]byte, error) {
	line := func(name string, n int64) {
		if n != 0 {
			buf = append(buf, indent+name+": "...)
			buf = append(strconv.AppendInt(buf, n, 10), '\n')
		}
	}
	switch fe.wk {
	case wkTimestamp:
		ms := int64(v.(types.Timestamp))
		line("seconds", floorDiv(ms, 1000))
		line("nanos", floorMod(ms, 1000)*1e6)
	case wkDate:
		t := time.Unix(int64(v.(types.Date))*86400, 0).UTC()
		line("year", int64(t.Year()))
		line("month", int64(t.Month()))
		line("day", int64(t.Day()))
	case wkTime:
		ms := int64(v.(types.Time))
		line("hours", ms/3_600_000)
		line("minutes", ms/60_000%60)
		line("seconds", ms/1000%60)
		line("nanos", ms%1000*1e6)
	case wkDecimal:
		d, err := rescale(v.(*apd.Decimal), fe.target)
		if err != nil {
			return buf, fe.errf("%v", err)
		}
		bi := d.Coeff.MathBigInt()
		if d.Negative {
			bi.Neg(bi)
		}
		buf = appendEscaped(append(buf, indent+"value: "...), twosComplement(bi))
		buf = append(buf, '\n')
		line("precision", int64(fe.target.Precision))
		line("scale", int64(fe.target.Scale))
	case wkWrapper:
		return fe.sub.text(buf, []any{v}, indent)
	default:
		sv, ok := v.(*types.StructValue)
		if !ok || len(sv.Values) != fe.sub.n {
			return buf, fe.errf("want a STRUCT of %d fields, got %T", fe.sub.n, v)
		}
		return fe.sub.text(buf, sv.Values, indent)
	}
	return buf, nil
}

func (fe *fieldEnc) textMap(buf []byte, v any, indent string) ([]byte, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return buf, fe.errf("want a MAP value, got %T", v)
	}
	var err error
	for _, k := range javaHashMapOrder(m) {
		buf = append(buf, indent+fe.name()+" {\n"...)
		if buf, err = fe.sub.text(buf, []any{k, m[k]}, indent+"  "); err != nil {
			return buf, err
		}
		buf = append(buf, indent+"}\n"...)
	}
	return buf, nil
}

// javaHashMapOrder is the order a java.util.HashMap holding these keys
// (inserted in sorted order) iterates in: by bucket of the spread
// String.hashCode, in a table grown at load factor 0.75.
func javaHashMapOrder(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	size := 16
	for float64(len(keys)) > 0.75*float64(size) {
		size *= 2
	}
	bucket := func(k string) int {
		h := javaStringHash(k)
		return int((h ^ (h >> 16)) & uint32(size-1))
	}
	sort.SliceStable(keys, func(i, j int) bool { return bucket(keys[i]) < bucket(keys[j]) })
	return keys
}

func javaStringHash(s string) uint32 {
	var h uint32
	for _, c := range utf16.Encode([]rune(s)) {
		h = 31*h + uint32(c)
	}
	return h
}

// appendEscaped quotes b as TextFormat's escapeBytes does.
func appendEscaped(buf, b []byte) []byte {
	buf = append(buf, '"')
	for _, c := range b {
		switch c {
		case '\a':
			buf = append(buf, `\a`...)
		case '\b':
			buf = append(buf, `\b`...)
		case '\f':
			buf = append(buf, `\f`...)
		case '\n':
			buf = append(buf, `\n`...)
		case '\r':
			buf = append(buf, `\r`...)
		case '\t':
			buf = append(buf, `\t`...)
		case '\v':
			buf = append(buf, `\v`...)
		case '\\', '\'', '"':
			buf = append(buf, '\\', c)
		default:
			if c >= 0x20 && c < 0x7f {
				buf = append(buf, c)
			} else {
				buf = append(buf, '\\', '0'+c>>6, '0'+(c>>3)&7, '0'+c&7)
			}
		}
	}
	return append(buf, '"')
}
