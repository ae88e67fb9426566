package expr

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/cockroachdb/datadriven"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// TestEval runs the files in testdata (eval, functions, errors). Each `eval` block has a header and
// expressions, one per line:
//
//	eval
//	schema: A INT, B STRING        (optional; column definitions)
//	row: 1, 'x'                    (optional; constant expressions)
//	meta: rowtime=10 window=0,100  (optional; record metadata)
//	A + 1
//	----
//	A + 1 → 2 : INTEGER
//
// An expression that fails prints its error code and message instead;
// runtime errors are marked "eval error"; function errors, which only make
// their call NULL, are appended as "(logged: …)".
func TestEval(t *testing.T) {
	reg := functions.NewRegistry()
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			switch td.Cmd {
			case "eval":
				return runEval(t, reg, td.Input)
			}
			t.Fatalf("unknown command %s", td.Cmd)
			return ""
		})
	})
}

func runEval(t *testing.T, reg *functions.Registry, input string) string {
	schema := &types.Schema{}
	row := &types.Row{}
	windowed := false
	var out strings.Builder
	for _, line := range strings.Split(input, "\n") {
		switch {
		case strings.HasPrefix(line, "schema:"):
			schema = parseSchema(t, strings.TrimPrefix(line, "schema:"))
		case strings.HasPrefix(line, "row:"):
			row.Values = parseRow(t, reg, schema, strings.TrimPrefix(line, "row:"))
		case strings.HasPrefix(line, "meta:"):
			windowed = parseMeta(t, row, strings.TrimPrefix(line, "meta:"))
		case strings.TrimSpace(line) != "":
			fmt.Fprintf(&out, "%s → %s\n", line, evalLine(reg, SchemaScope(schema, []string{"S"}, windowed), row, line))
		}
	}
	return out.String()
}

func evalLine(reg *functions.Registry, scope Scope, row *types.Row, text string) string {
	e, err := parser.ParseExpr(text)
	if err != nil {
		return "parse error: " + err.Error()
	}
	c, err := Compile(e, scope, reg)
	if err != nil {
		var se *sqlerr.Error
		if errors.As(err, &se) {
			msg, _, _ := strings.Cut(se.Msg, "\n") // the first line; alternatives follow
			return fmt.Sprintf("error %s %d:%d: %s", se.Code, se.Pos.Line, se.Pos.Col, msg)
		}
		return "error (not a sqlerr): " + err.Error()
	}
	out := renderEval(c, row, func(c *Compiled) (any, error) { return c.Eval(row) })
	if shared := sharedEval(c, row); shared != out {
		return out + " BUT SHARED: " + shared
	}
	return out
}

// renderEval evaluates c through eval and renders the value, or the
// error, and the function errors logged.
func renderEval(c *Compiled, row *types.Row, eval func(*Compiled) (any, error)) string {
	var logged []string
	v, err := eval(c.WithErrorLog(func(err error) { logged = append(logged, err.Error()) }))
	if err != nil {
		return fmt.Sprintf("eval error: %v : %s", err, c.Type())
	}
	out := fmt.Sprintf("%s : %s", render(v), c.Type())
	for _, l := range logged {
		out += " (logged: " + l + ")"
	}
	return out
}

// sharedEval evaluates c twice in one Share group with one memo, the
// second time entirely from the memo, over two rows: every rendering
// must be the plain one (the golden output), errors and logs included.
func sharedEval(c *Compiled, row *types.Row) string {
	var logs [2][]string
	members := []*Compiled{
		c.WithErrorLog(func(err error) { logs[0] = append(logs[0], err.Error()) }),
		c.WithErrorLog(func(err error) { logs[1] = append(logs[1], err.Error()) }),
	}
	group, slots := Share(members)
	if slots == 0 { // constants, columns and volatile calls are not shared
		return renderEval(c, row, func(c *Compiled) (any, error) { return c.Eval(row) })
	}
	m := NewMemo(slots)
	var outs []string
	for range 2 { // the second row checks that Reset forgets the first
		m.Reset()
		logs = [2][]string{}
		var res [2]string
		for i, g := range group {
			v, err := g.Bind(m).Eval(row)
			if err != nil {
				res[i] = fmt.Sprintf("eval error: %v : %s", err, c.Type())
			} else {
				res[i] = fmt.Sprintf("%s : %s", render(v), c.Type())
				for _, l := range logs[i] {
					res[i] += " (logged: " + l + ")"
				}
			}
		}
		if res[0] != res[1] {
			return "first " + res[0] + ", from the memo " + res[1]
		}
		outs = append(outs, res[0])
	}
	if outs[0] != outs[1] {
		return "first row " + outs[0] + ", second row " + outs[1]
	}
	return outs[0]
}

func parseSchema(t *testing.T, text string) *types.Schema {
	st, err := parser.ParseType("STRUCT<" + text + ">")
	if err != nil {
		t.Fatalf("schema %q: %v", text, err)
	}
	s := &types.Schema{}
	for _, f := range st.Fields {
		s.Columns = append(s.Columns, types.Column{Name: f.Name, Type: f.Type})
	}
	return s
}

func parseRow(t *testing.T, reg *functions.Registry, s *types.Schema, text string) []any {
	parts := splitTopLevel(text)
	if len(parts) != len(s.Columns) {
		t.Fatalf("row has %d values, schema %d columns", len(parts), len(s.Columns))
	}
	vals := make([]any, len(parts))
	for i, p := range parts {
		e, err := parser.ParseExpr(p)
		if err != nil {
			t.Fatalf("row value %q: %v", p, err)
		}
		v, typ, err := Constant(e, reg)
		if err != nil {
			t.Fatalf("row value %q: %v", p, err)
		}
		if vals[i], err = Coerce(v, typ, s.Columns[i].Type); err != nil {
			t.Fatalf("row value %q: %v", p, err)
		}
	}
	return vals
}

// splitTopLevel splits on commas outside quotes and brackets.
func splitTopLevel(s string) []string {
	var parts []string
	depth, quoted, start := 0, false, 0
	for i, r := range s {
		switch {
		case r == '\'':
			quoted = !quoted
		case quoted:
		case r == '(' || r == '[':
			depth++
		case r == ')' || r == ']':
			depth--
		case r == ',' && depth == 0:
			parts = append(parts, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(parts, strings.TrimSpace(s[start:]))
}

func parseMeta(t *testing.T, row *types.Row, text string) bool {
	windowed := false
	for _, kv := range strings.Fields(text) {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "rowtime":
			row.Time = mustInt(t, v)
		case "partition":
			row.Partition = int32(mustInt(t, v))
		case "offset":
			row.Offset = mustInt(t, v)
		case "window":
			a, b, _ := strings.Cut(v, ",")
			row.Window, windowed = &types.Window{Start: mustInt(t, a), End: mustInt(t, b)}, true
		case "windowed":
			windowed = true
		default:
			t.Fatalf("unknown meta %s", k)
		}
	}
	return windowed
}

func mustInt(t *testing.T, s string) int64 {
	i, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return i
}

// render prints a value unambiguously: strings quoted, NULL as NULL.
func render(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return "'" + x + "'"
	case []byte:
		return fmt.Sprintf("bytes(%x)", x)
	case *apd.Decimal:
		return x.String()
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = render(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		var parts []string
		for _, k := range sortedKeys(x) {
			parts = append(parts, k+": "+render(x[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case *types.StructValue:
		parts := make([]string, len(x.Values))
		for i, f := range x.Type.Fields {
			parts[i] = f.Name + ": " + render(x.Values[i])
		}
		return "STRUCT(" + strings.Join(parts, ", ") + ")"
	case types.Timestamp:
		return "TIMESTAMP " + FormatTimestamp(x)
	case types.Date:
		return "DATE " + FormatDate(x)
	case types.Time:
		return "TIME " + FormatTime(x)
	}
	return JavaString(v)
}
