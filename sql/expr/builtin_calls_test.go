package expr

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/types"
)

// TestEveryBuiltinCallParses calls every overload of every built-in
// scalar and aggregate function with a literal of each parameter's type,
// inside a SELECT, and checks that the parser (its TiDB pass included)
// gives back a call of that function whose arguments are exactly the
// literals written, and that the call type-checks against the overload.
func TestEveryBuiltinCallParses(t *testing.T) {
	reg := functions.NewRegistry()
	aggs := functions.NewAggregates()
	aggs.DeclareIn(reg)
	n := 0
	for _, name := range reg.Names() {
		if k, _ := reg.Kind(name); k == functions.Table {
			continue // table functions are not allowed in a plain projection
		}
		ovs, ok := reg.Describe(name)
		if !ok {
			ovs, ok = aggs.Describe(name)
		}
		for _, o := range ovs {
			args := make([]string, len(o.Arguments))
			for i, a := range o.Arguments {
				args[i] = literalOf(t, a.Type)
			}
			checkBuiltinCall(t, reg, aggs, name, args)
			n++
		}
	}
	if n < 200 {
		t.Fatalf("only %d overloads checked", n)
	}
}

// checkBuiltinCall parses SELECT name(args) FROM S and type-checks it.
func checkBuiltinCall(t *testing.T, reg *functions.Registry, aggs *functions.Aggregates, name string, args []string) {
	t.Helper()
	sql := fmt.Sprintf("SELECT %s(%s) FROM S;", name, strings.Join(args, ", "))
	call, err := parsedCall(sql)
	if err != nil {
		t.Errorf("%s: %v", sql, err)
		return
	}
	if got := callText(call); call.Name != name || got != wantCallText(t, name, args) {
		t.Errorf("%s parsed to %s", sql, got)
		return
	}
	if err := typeCheck(call, reg, aggs); err != nil {
		t.Errorf("%s: %v", sql, err)
	}
}

func parsedCall(sql string) (*ast.Call, error) {
	stmts, err := parser.Parse(sql)
	if err != nil {
		return nil, err
	}
	q, ok := stmts[0].(*ast.Query)
	if !ok || len(q.Items) != 1 {
		return nil, fmt.Errorf("not a one-item query: %T", stmts[0])
	}
	call, ok := q.Items[0].Expr.(*ast.Call)
	if !ok {
		return nil, fmt.Errorf("parsed to %s, not a call", ast.FormatExpr(q.Items[0].Expr))
	}
	return call, nil
}

// callText is the canonical text of a call's name and arguments.
func callText(c *ast.Call) string {
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = ast.FormatExpr(a)
	}
	return c.Name + "(" + strings.Join(args, ", ") + ")"
}

// wantCallText is the canonical text of each argument parsed on its own
// (a lambda, which cannot stand alone, as the only argument of a call).
func wantCallText(t *testing.T, name string, args []string) string {
	t.Helper()
	out := make([]string, len(args))
	for i, a := range args {
		e, err := parser.ParseExpr("F(" + a + ")")
		if err != nil {
			t.Fatalf("literal %s: %v", a, err)
		}
		out[i] = ast.FormatExpr(e.(*ast.Call).Args[0])
	}
	return name + "(" + strings.Join(out, ", ") + ")"
}

func typeCheck(call *ast.Call, reg *functions.Registry, aggs *functions.Aggregates) error {
	scope := SchemaScope(&types.Schema{}, nil, false)
	if !aggs.IsAggregate(call.Name) {
		_, err := Compile(call, scope, reg)
		return err
	}
	var argTypes []*types.Type
	var init []any
	for _, a := range call.Args {
		c, err := Compile(a, scope, reg)
		if err != nil {
			return err
		}
		v, _, err := Constant(a, reg)
		if err != nil {
			return err
		}
		argTypes, init = append(argTypes, c.Type()), append(init, v)
	}
	_, err := aggs.Resolve(call.Name, argTypes, init)
	return err
}

// literalOf returns a literal (or constructor of literals) of a signature
// type; every type variable stands for INTEGER.
func literalOf(t *testing.T, sig string) string {
	t.Helper()
	switch {
	case strings.HasPrefix(sig, "ARRAY<"):
		return "ARRAY[" + literalOf(t, inner(sig, "ARRAY<")[0]) + "]"
	case strings.HasPrefix(sig, "MAP<"):
		kv := inner(sig, "MAP<")
		return "MAP(" + literalOf(t, kv[0]) + " := " + literalOf(t, kv[1]) + ")"
	case strings.HasPrefix(sig, "LAMBDA<"):
		return lambdaOf(inner(sig, "LAMBDA<"))
	}
	if lit, ok := primitiveLiterals[sig]; ok {
		return lit
	}
	if isTypeVar(sig) {
		return "1"
	}
	t.Fatalf("no literal for signature type %s", sig)
	return ""
}

var primitiveLiterals = map[string]string{
	"BOOLEAN":   "TRUE",
	"INTEGER":   "1",
	"BIGINT":    "10000000000",
	"DOUBLE":    "1.5E0",
	"DECIMAL":   "1.5",
	"STRING":    "'a'",
	"BYTES":     "TO_BYTES('YQ==', 'base64')",
	"DATE":      "CAST('2020-01-02' AS DATE)",
	"TIME":      "CAST('10:11:12' AS TIME)",
	"TIMESTAMP": "CAST('2020-01-02T10:11:12' AS TIMESTAMP)",
}

func isTypeVar(s string) bool {
	return s != "" && s[0] >= 'A' && s[0] <= 'Z' && len(s) <= 2
}

// inner splits the comma-separated type arguments of PREFIX…>.
func inner(sig, prefix string) []string {
	body := sig[len(prefix) : len(sig)-1]
	var out []string
	depth, start := 0, 0
	for i, c := range body {
		switch c {
		case '<':
			depth++
		case '>':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(body[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(body[start:]))
}

// lambdaOf writes a lambda over the given parameter types whose body has
// the return type (the last element).
func lambdaOf(ts []string) string {
	params, ret := ts[:len(ts)-1], ts[len(ts)-1]
	names := make([]string, len(params))
	body := ""
	for i, p := range params {
		names[i] = fmt.Sprintf("x%d", i)
		if p == ret && body == "" {
			body = names[i]
		}
	}
	switch {
	case body != "":
	case ret == "BOOLEAN":
		body = "TRUE"
	case ret == "STRING":
		body = "'a'"
	default:
		body = names[0]
	}
	return "(" + strings.Join(names, ", ") + ") => " + body
}
