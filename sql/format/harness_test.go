package format

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/cockroachdb/datadriven"
	"github.com/sqlstream/sqlstream/sql/types"
)

// codecHarness runs the datadriven codec tests:
//
//	new-codec format=JSON [key] [wrap=true|false] [delimiter=X]
//	NAME TYPE            (one column per line)
//	----
//	ok | error: …
//
//	decode [hex]          input: one record (hex-encoded with hex)
//	encode [hex]          input: a JSON array of column values (FromJSON)
//	roundtrip             input: one record; decode then encode
type codecHarness struct {
	cols  []types.Column
	codec Codec
}

func runCodecTest(t *testing.T, path string) {
	h := &codecHarness{}
	datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
		switch d.Cmd {
		case "new-codec":
			return h.newCodec(t, d)
		case "decode":
			return h.decode(t, d)
		case "encode":
			return h.encode(t, d)
		case "roundtrip":
			return h.roundtrip(t, d)
		}
		t.Fatalf("unknown command %s", d.Cmd)
		return ""
	})
}

func (h *codecHarness) newCodec(t *testing.T, d *datadriven.TestData) string {
	var spec Spec
	d.ScanArgs(t, "format", &spec.Name)
	if d.HasArg("wrap") {
		var w bool
		d.ScanArgs(t, "wrap", &w)
		spec.WrapSingle = &w
	}
	if d.HasArg("delimiter") {
		var s string
		d.ScanArgs(t, "delimiter", &s)
		r, err := ParseDelimiter("VALUE_DELIMITER", s)
		if err != nil {
			return "error: " + err.Error()
		}
		spec.Delimiter = r
	}
	ns := types.ValueNS
	if d.HasArg("key") {
		ns = types.KeyNS
	}
	h.cols = parseColumns(t, d.Input, ns)
	var err error
	if ns == types.KeyNS {
		h.codec, err = NewKeyCodec(spec, h.cols)
	} else {
		h.codec, err = NewValueCodec(spec, h.cols)
	}
	if err != nil {
		return "error: " + err.Error()
	}
	return "ok"
}

func (h *codecHarness) input(t *testing.T, d *datadriven.TestData) []byte {
	if !d.HasArg("hex") {
		return []byte(d.Input)
	}
	b, err := hex.DecodeString(strings.ReplaceAll(d.Input, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (h *codecHarness) decode(t *testing.T, d *datadriven.TestData) string {
	dst := make([]any, len(h.cols))
	if err := h.codec.Decode(h.input(t, d), dst); err != nil {
		return "error: " + err.Error()
	}
	return describeRow(h.cols, dst)
}

func (h *codecHarness) encode(t *testing.T, d *datadriven.TestData) string {
	var raw []any
	dec := json.NewDecoder(strings.NewReader(d.Input))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		t.Fatalf("bad encode input: %v", err)
	}
	vals := make([]any, len(h.cols))
	for i := range vals {
		v, err := FromJSON(raw[i], h.cols[i].Type)
		if err != nil {
			t.Fatalf("column %d: %v", i, err)
		}
		vals[i] = v
	}
	return h.encodeVals(t, d, vals)
}

func (h *codecHarness) encodeVals(t *testing.T, d *datadriven.TestData, vals []any) string {
	out, err := h.codec.Encode(nil, vals)
	switch {
	case err != nil:
		return "error: " + err.Error()
	case out == nil:
		return "<nil record>"
	case d.HasArg("hex"):
		return hex.EncodeToString(out)
	}
	return string(out)
}

func (h *codecHarness) roundtrip(t *testing.T, d *datadriven.TestData) string {
	dst := make([]any, len(h.cols))
	if err := h.codec.Decode(h.input(t, d), dst); err != nil {
		return "error: " + err.Error()
	}
	return h.encodeVals(t, d, dst)
}

func parseColumns(t testing.TB, text string, ns types.Namespace) []types.Column {
	var cols []types.Column
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		name, typ, _ := strings.Cut(line, " ")
		col := types.Column{Name: name, NS: ns}
		if rest, ok := strings.CutSuffix(typ, " HEADERS"); ok {
			typ, col.NS = rest, types.HeaderNS
		} else if i := strings.Index(typ, " HEADER("); i >= 0 {
			typ, col.NS, col.HeaderKey = typ[:i], types.HeaderNS, strings.TrimSuffix(typ[i+8:], ")")
		}
		col.Type = mustType(t, typ)
		cols = append(cols, col)
	}
	return cols
}

// describeRow prints one line per column: NAME = value with Go types.
func describeRow(cols []types.Column, vals []any) string {
	var b strings.Builder
	for i, c := range cols {
		fmt.Fprintf(&b, "%s = %s\n", c.Name, describe(vals[i]))
	}
	return b.String()
}

// describe renders a value together with its Go representation.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return strconv.Quote(x)
	case bool:
		return strconv.FormatBool(x)
	case int32:
		return fmt.Sprintf("int32(%d)", x)
	case int64:
		return fmt.Sprintf("int64(%d)", x)
	case float64:
		return fmt.Sprintf("float64(%s)", strconv.FormatFloat(x, 'g', -1, 64))
	case *apd.Decimal:
		return "decimal(" + x.Text('f') + ")"
	case []byte:
		return fmt.Sprintf("bytes(%x)", x)
	case types.Timestamp:
		return fmt.Sprintf("timestamp(%d)", int64(x))
	case types.Date:
		return fmt.Sprintf("date(%d)", int32(x))
	case types.Time:
		return fmt.Sprintf("time(%d)", int32(x))
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = describe(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		return describeMap(x)
	case *types.StructValue:
		parts := make([]string, len(x.Values))
		for i, e := range x.Values {
			parts[i] = x.Type.Fields[i].Name + ": " + describe(e)
		}
		return "struct{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprintf("%T(%v)", v, v)
}

func describeMap(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = strconv.Quote(k) + ": " + describe(m[k])
	}
	return "map{" + strings.Join(parts, ", ") + "}"
}

// mustType parses a SQL type in the test notation: INT, BIGINT, DOUBLE,
// BOOLEAN, STRING, BYTES, TIMESTAMP, DATE, TIME, DECIMAL(p,s), ARRAY<T>,
// MAP<K,V>, STRUCT<NAME T, …>.
func mustType(t testing.TB, s string) *types.Type {
	p := &typeParser{s: strings.TrimSpace(s)}
	typ, err := p.parse()
	if err == nil && p.rest() != "" {
		err = fmt.Errorf("trailing %q", p.rest())
	}
	if err != nil {
		t.Fatalf("type %q: %v", s, err)
	}
	return typ
}

type typeParser struct {
	s   string
	pos int
}

func (p *typeParser) rest() string { return strings.TrimSpace(p.s[p.pos:]) }

func (p *typeParser) word() string {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.s) && (isWordByte(p.s[p.pos])) {
		p.pos++
	}
	return p.s[start:p.pos]
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

func (p *typeParser) skipSpace() {
	for p.pos < len(p.s) && p.s[p.pos] == ' ' {
		p.pos++
	}
}

func (p *typeParser) eat(c byte) error {
	p.skipSpace()
	if p.pos >= len(p.s) || p.s[p.pos] != c {
		return fmt.Errorf("expected %q at %d", c, p.pos)
	}
	p.pos++
	return nil
}

var primitiveTypes = map[string]*types.Type{
	"INT": types.IntegerType, "INTEGER": types.IntegerType, "BIGINT": types.BigintType,
	"DOUBLE": types.DoubleType, "BOOLEAN": types.BooleanType, "STRING": types.StringType,
	"BYTES": types.BytesType, "TIMESTAMP": types.TimestampType, "DATE": types.DateType,
	"TIME": types.TimeType,
}

func (p *typeParser) parse() (*types.Type, error) {
	w := strings.ToUpper(p.word())
	if t, ok := primitiveTypes[w]; ok {
		return t, nil
	}
	switch w {
	case "DECIMAL":
		return p.decimal()
	case "ARRAY":
		return p.array()
	case "MAP":
		return p.mapType()
	case "STRUCT":
		return p.structType()
	}
	return nil, fmt.Errorf("unknown type %q", w)
}

func (p *typeParser) decimal() (*types.Type, error) {
	if err := p.eat('('); err != nil {
		return nil, err
	}
	prec, _ := strconv.Atoi(p.word())
	if err := p.eat(','); err != nil {
		return nil, err
	}
	scale, _ := strconv.Atoi(p.word())
	return types.DecimalOf(prec, scale), p.eat(')')
}

func (p *typeParser) array() (*types.Type, error) {
	if err := p.eat('<'); err != nil {
		return nil, err
	}
	elem, err := p.parse()
	if err != nil {
		return nil, err
	}
	return types.ArrayOf(elem), p.eat('>')
}

func (p *typeParser) mapType() (*types.Type, error) {
	if err := p.eat('<'); err != nil {
		return nil, err
	}
	k, err := p.parse()
	if err != nil {
		return nil, err
	}
	if err := p.eat(','); err != nil {
		return nil, err
	}
	v, err := p.parse()
	if err != nil {
		return nil, err
	}
	return types.MapOf(k, v), p.eat('>')
}

func (p *typeParser) structType() (*types.Type, error) {
	if err := p.eat('<'); err != nil {
		return nil, err
	}
	var fields []types.Field
	for {
		name := p.word()
		ft, err := p.parse()
		if err != nil {
			return nil, err
		}
		fields = append(fields, types.Field{Name: name, Type: ft})
		p.skipSpace()
		if p.pos < len(p.s) && p.s[p.pos] == ',' {
			p.pos++
			continue
		}
		return types.StructOf(fields...), p.eat('>')
	}
}

// mustJSON decodes JSON text with UseNumber, failing the test on error.
func mustJSON(t testing.TB, s string) any {
	var v any
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("bad JSON %q: %v", s, err)
	}
	return v
}
