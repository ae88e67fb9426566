package functions

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/cockroachdb/apd/v3"
	"github.com/cockroachdb/datadriven"
	"github.com/sqlstream/sqlstream/sql/types"

	"github.com/sqlstream/sqlstream/sql/functions/internal/java"
)

// The golden tests under testdata/url, json, collections, regex and bytes evaluate calls written in a small
// literal language, so that each case is one line:
//
//	'str'  NULL  TRUE  42 (INTEGER)  42L (BIGINT)  1.5 (DOUBLE)
//	DEC('1.50')  BYTES('0aff')  TS(ms)  DATE(days)  TIME(ms)
//	ARRAY[e, …]  MAP('k' := e, …)  STRUCT(F := e, …)  FN(args…)
//
// Function calls go straight to the definitions of scalarDefs, choosing the
// overload by arity and argument types, and honour the NullAware contract
// of Overload. Results print in the same language; errors as "error: …".

func TestScalarDefsGolden(t *testing.T) {
	for _, file := range []string{"url", "json", "collections", "regex", "bytes"} {
		t.Run(file, func(t *testing.T) {
			datadriven.RunTest(t, "testdata/"+file, func(t *testing.T, d *datadriven.TestData) string {
				var out strings.Builder
				for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
					v, err := evalLiteral(line)
					if err != nil {
						fmt.Fprintf(&out, "error: %v\n", err)
						continue
					}
					out.WriteString(renderValue(v) + "\n")
				}
				return out.String()
			})
		})
	}
}

// callDef calls the function name with args as the registry would.
func callDef(name string, args ...any) (any, error) {
	for _, d := range scalarDefs(nil) {
		if d.Name != name {
			continue
		}
		for _, o := range d.Overloads {
			if !overloadAccepts(o.Sig, args) {
				continue
			}
			if !o.NullAware && slices.Contains(args, nil) {
				return nil, nil
			}
			return o.Fn(args)
		}
		return nil, fmt.Errorf("no overload of %s accepts %d arguments %v", name, len(args), args)
	}
	return nil, fmt.Errorf("unknown function %s", name)
}

// overloadAccepts matches args against the parameter kinds of sig.
func overloadAccepts(sig string, args []any) bool {
	params := sigParams(sig)
	variadic := strings.Contains(sig, "...")
	if !variadic && len(params) != len(args) {
		return false
	}
	for i, a := range args {
		p := params[min(i, len(params)-1)]
		if a != nil && !kindMatches(p, a) {
			return false
		}
	}
	return true
}

// sigParams returns the first word of each top-level parameter of sig.
func sigParams(sig string) []string {
	inner := sig[strings.IndexByte(sig, '(')+1 : strings.LastIndexByte(sig, ')')]
	var params []string
	depth, start := 0, 0
	for i := 0; i <= len(inner); i++ {
		if i == len(inner) || inner[i] == ',' && depth == 0 {
			if f := strings.FieldsFunc(inner[start:i], func(r rune) bool { return r == ' ' || r == '<' }); len(f) > 0 {
				params = append(params, f[0])
			}
			start = i + 1
			continue
		}
		switch inner[i] {
		case '<', '(':
			depth++
		case '>', ')':
			depth--
		}
	}
	return params
}

func kindMatches(param string, v any) bool {
	want := map[string]string{"INTEGER": "int32", "BIGINT": "int64", "DOUBLE": "float64", "STRING": "string",
		"BOOLEAN": "bool", "BYTES": "[]uint8", "ARRAY": "[]interface {}", "MAP": "map[string]interface {}",
		"LAMBDA": "functions.Lambda"}[param]
	return want == "" || fmt.Sprintf("%T", v) == want
}

// literalParser parses the golden files' literal language.
type literalParser struct {
	s   string
	pos int
}

func evalLiteral(s string) (any, error) {
	p := &literalParser{s: s}
	v, err := p.expr()
	if err == nil && strings.TrimSpace(p.s[p.pos:]) != "" {
		err = fmt.Errorf("unexpected %q", p.s[p.pos:])
	}
	return v, err
}

func (p *literalParser) skip() {
	for p.pos < len(p.s) && p.s[p.pos] == ' ' {
		p.pos++
	}
}

func (p *literalParser) eat(tok string) bool {
	p.skip()
	if strings.HasPrefix(p.s[p.pos:], tok) {
		p.pos += len(tok)
		return true
	}
	return false
}

func (p *literalParser) expr() (any, error) {
	p.skip()
	if p.pos >= len(p.s) {
		return nil, fmt.Errorf("unexpected end of %q", p.s)
	}
	switch c := p.s[p.pos]; {
	case c == '\'':
		return p.quoted()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case unicode.IsLetter(rune(c)):
		return p.word()
	}
	return nil, fmt.Errorf("unexpected %q", p.s[p.pos:])
}

func (p *literalParser) quoted() (string, error) {
	var b strings.Builder
	for p.pos++; p.pos < len(p.s); p.pos++ {
		if p.s[p.pos] == '\'' {
			if strings.HasPrefix(p.s[p.pos:], "''") {
				b.WriteByte('\'')
				p.pos++
				continue
			}
			p.pos++
			return b.String(), nil
		}
		b.WriteByte(p.s[p.pos])
	}
	return "", fmt.Errorf("unterminated string in %q", p.s)
}

func (p *literalParser) number() (any, error) {
	start := p.pos
	p.pos++
	for p.pos < len(p.s) && strings.IndexByte("0123456789.eE-+", p.s[p.pos]) >= 0 {
		p.pos++
	}
	text := p.s[start:p.pos]
	if p.eat("L") {
		return strconv.ParseInt(text, 10, 64)
	}
	if strings.ContainsAny(text, ".eE") {
		return strconv.ParseFloat(text, 64)
	}
	i, err := strconv.ParseInt(text, 10, 32)
	return int32(i), err
}

func (p *literalParser) word() (any, error) {
	start := p.pos
	for p.pos < len(p.s) && (unicode.IsLetter(rune(p.s[p.pos])) || unicode.IsDigit(rune(p.s[p.pos])) || p.s[p.pos] == '_') {
		p.pos++
	}
	switch w := p.s[start:p.pos]; w {
	case "NULL":
		return nil, nil
	case "TRUE", "FALSE":
		return w == "TRUE", nil
	case "ARRAY":
		return p.array()
	case "MAP", "STRUCT":
		return p.pairs(w)
	default:
		args, err := p.args()
		if err != nil {
			return nil, err
		}
		return literalConstructor(w, args)
	}
}

func (p *literalParser) array() (any, error) {
	if !p.eat("[") {
		return nil, fmt.Errorf("expected '[' after ARRAY")
	}
	out := []any{}
	for !p.eat("]") {
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.eat(",")
	}
	return out, nil
}

// pairs parses MAP('k' := v, …) and STRUCT(F := v, …).
func (p *literalParser) pairs(kind string) (any, error) {
	if !p.eat("(") {
		return nil, fmt.Errorf("expected '(' after %s", kind)
	}
	m := map[string]any{}
	var fields []types.Field
	var values []any
	for !p.eat(")") {
		p.skip()
		var key string
		var err error
		if kind == "MAP" {
			key, err = p.quoted()
		} else {
			start := p.pos
			for p.pos < len(p.s) && p.s[p.pos] != ' ' && p.s[p.pos] != ':' {
				p.pos++
			}
			key = p.s[start:p.pos]
		}
		if err != nil || !p.eat(":=") {
			return nil, fmt.Errorf("expected key := value in %q", p.s)
		}
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		m[key] = v
		fields = append(fields, types.Field{Name: key, Type: literalType(v)})
		values = append(values, v)
		p.eat(",")
	}
	if kind == "MAP" {
		return m, nil
	}
	return &types.StructValue{Type: types.StructOf(fields...), Values: values}, nil
}

func literalType(v any) *types.Type {
	switch v.(type) {
	case int32:
		return types.IntegerType
	case int64:
		return types.BigintType
	case float64:
		return types.DoubleType
	case bool:
		return types.BooleanType
	}
	return types.StringType
}

func (p *literalParser) args() ([]any, error) {
	if !p.eat("(") {
		return nil, fmt.Errorf("expected '(' in %q", p.s)
	}
	var args []any
	for !p.eat(")") {
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		args = append(args, v)
		p.eat(",")
	}
	return args, nil
}

// literalConstructor builds typed literals or calls a function.
func literalConstructor(name string, args []any) (any, error) {
	switch name {
	case "DEC":
		d, _, err := apd.NewFromString(args[0].(string))
		return d, err
	case "BYTES":
		return hex.DecodeString(args[0].(string))
	case "TS":
		return types.Timestamp(args[0].(int64)), nil
	case "DATE":
		return types.Date(args[0].(int32)), nil
	case "TIME":
		return types.Time(args[0].(int32)), nil
	}
	return callDef(name, args...)
}

// renderValue prints v in the literal language.
func renderValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return "'" + renderControlChars(strings.ReplaceAll(x, "'", "''")) + "'"
	case bool:
		return strings.ToUpper(strconv.FormatBool(x))
	case int32:
		return strconv.Itoa(int(x))
	case int64:
		return strconv.FormatInt(x, 10) + "L"
	case float64:
		return java.FormatDouble(x)
	case *apd.Decimal:
		return "DEC('" + x.String() + "')"
	case []byte:
		return "BYTES('" + fmt.Sprintf("%x", x) + "')"
	case types.Timestamp:
		return fmt.Sprintf("TS(%dL)", x)
	case types.Date:
		return fmt.Sprintf("DATE(%d)", x)
	case types.Time:
		return fmt.Sprintf("TIME(%d)", x)
	case []any:
		return "ARRAY[" + renderValues(x) + "]"
	case map[string]any:
		parts := make([]string, 0, len(x))
		for _, k := range sortedMapKeys(x) {
			parts = append(parts, renderValue(k)+" := "+renderValue(x[k]))
		}
		return "MAP(" + strings.Join(parts, ", ") + ")"
	case *types.StructValue:
		parts := make([]string, len(x.Values))
		for i, f := range x.Type.Fields {
			parts[i] = f.Name + " := " + renderValue(x.Values[i])
		}
		return "STRUCT(" + strings.Join(parts, ", ") + ")"
	}
	return fmt.Sprintf("%T(%v)", v, v)
}

func renderValues(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = renderValue(v)
	}
	return strings.Join(parts, ", ")
}

// renderControlChars makes control characters visible in golden output.
func renderControlChars(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
