package functions

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/types"
)

// TestAggregatesGolden pins DESCRIBE FUNCTION's view of the aggregates
// and overload resolution in testdata/agg_registry:
//
//	describe            one function name per line; prints its
//	                    description and overloads
//	names               every registered name
//	resolve             one call per line: NAME(TYPE, …) [init LIT, …];
//	                    prints state and return types and whether the
//	                    aggregator undoes (tables) and merges (sessions)
func TestAggregatesGolden(t *testing.T) {
	reg := NewAggregates()
	datadriven.RunTest(t, "testdata/agg_registry", func(t *testing.T, d *datadriven.TestData) string {
		var out strings.Builder
		switch d.Cmd {
		case "names":
			out.WriteString(strings.Join(reg.Names(), "\n") + "\n")
		case "describe":
			for _, name := range lines(d.Input) {
				describeAggregate(&out, reg, name)
			}
		case "resolve":
			for _, call := range lines(d.Input) {
				resolveAggregate(&out, reg, call)
			}
		default:
			d.Fatalf(t, "unknown command %s", d.Cmd)
		}
		return out.String()
	})
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func describeAggregate(out *strings.Builder, reg *Aggregates, name string) {
	infos, ok := reg.Describe(name)
	if !ok {
		fmt.Fprintf(out, "%s: not an aggregate\n", name)
		return
	}
	def, _ := reg.Lookup(name)
	fmt.Fprintf(out, "%s: %s\n", def.Name, def.Description)
	for _, o := range infos {
		var args []string
		for _, a := range o.Arguments {
			s := strings.TrimSpace(a.Type + " " + a.Name)
			if a.Variadic {
				s += "..."
			}
			args = append(args, s)
		}
		fmt.Fprintf(out, "  (%s) => %s\n", strings.Join(args, ", "), o.ReturnType)
		if o.Description != def.Description {
			fmt.Fprintf(out, "    %s\n", o.Description)
		}
	}
}

func resolveAggregate(out *strings.Builder, reg *Aggregates, call string) {
	name, args, init, err := parseAggCall(call)
	if err != nil {
		fmt.Fprintf(out, "%s\n  bad test input: %v\n", call, err)
		return
	}
	agg, err := reg.Resolve(name, args, init)
	if err != nil {
		fmt.Fprintf(out, "%s\n  error: %v\n", call, err)
		return
	}
	_, undo := agg.(Undoer)
	_, merge := agg.(Merger)
	fmt.Fprintf(out, "%s\n  state:  %s\n  return: %s\n  undo: %t  merge: %t\n", call, agg.StateType(), agg.ReturnType(), undo, merge)
}

// parseAggCall parses "NAME(TYPE, …) [init LIT, …]".
func parseAggCall(s string) (string, []*types.Type, []any, error) {
	var init []any
	if i := strings.LastIndex(s, ") init "); i >= 0 {
		for _, lit := range splitTop(s[i+len(") init "):]) {
			v, err := parseAggLiteral(lit)
			if err != nil {
				return "", nil, nil, err
			}
			init = append(init, v)
		}
		s = s[:i+1]
	}
	open := strings.IndexByte(s, '(')
	if open < 0 || !strings.HasSuffix(s, ")") {
		return "", nil, nil, fmt.Errorf("want NAME(TYPE, …)")
	}
	var args []*types.Type
	for _, ts := range splitTop(s[open+1 : len(s)-1]) {
		t, err := parseAggType(ts)
		if err != nil {
			return "", nil, nil, err
		}
		args = append(args, t)
	}
	return s[:open], args, init, nil
}

// splitTop splits s at commas outside <> and ().
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '<', '(':
			depth++
		case '>', ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

// parseAggType parses a type in SQL syntax; NULL is the type of an
// untyped NULL.
func parseAggType(s string) (*types.Type, error) {
	if s == "NULL" {
		return types.UnknownType, nil
	}
	return parser.ParseType(s)
}

func parseAggLiteral(s string) (any, error) {
	switch s {
	case "NULL":
		return nil, nil
	case "true", "false":
		return s == "true", nil
	}
	if strings.HasPrefix(s, "'") {
		return strings.Trim(s, "'"), nil
	}
	if strings.HasSuffix(s, "L") {
		n, err := strconv.ParseInt(strings.TrimSuffix(s, "L"), 10, 64)
		return n, err
	}
	n, err := strconv.ParseInt(s, 10, 32)
	return int32(n), err
}

func TestAggregatesRegistry(t *testing.T) {
	reg := NewAggregates()
	scalars := NewRegistry()
	for _, n := range reg.Names() {
		if !reg.IsAggregate(strings.ToLower(n)) {
			t.Errorf("IsAggregate(%s) is false", n)
		}
		if _, ok := scalars.Lookup(n); ok {
			t.Errorf("%s is both a scalar and an aggregate", n)
		}
	}
	declared := NewRegistry()
	reg.DeclareIn(declared)
	for _, n := range reg.Names() {
		if k, ok := declared.Kind(n); !ok || k != Aggregate {
			t.Errorf("DeclareIn: %s is %v (known %t)", n, k, ok)
		}
	}
	if reg.IsAggregate("UCASE") {
		t.Errorf("UCASE is not an aggregate")
	}
	if _, ok := reg.Lookup("nope"); ok {
		t.Errorf("Lookup(nope) found something")
	}
	if _, ok := reg.Describe("nope"); ok {
		t.Errorf("Describe(nope) found something")
	}
}

func TestAggregatesAddValidates(t *testing.T) {
	newAgg := func([]*types.Type, []any) (Aggregator, error) { return &countAgg{}, nil }
	for _, c := range []struct {
		def  AggregateDef
		want string
	}{
		{AggregateDef{Name: "sum", Overloads: []AggregateOverload{{Sig: "SUM(INTEGER) INTEGER", New: newAgg}}},
			"aggregate function SUM is already registered"},
		{AggregateDef{Name: "MINE", Overloads: []AggregateOverload{{Sig: "OTHER(INTEGER) INTEGER", New: newAgg}}},
			`signature "OTHER(INTEGER) INTEGER" does not belong to aggregate function MINE`},
		{AggregateDef{Name: "MINE", Overloads: []AggregateOverload{{Sig: "MINE(INTEGER) INTEGER"}}},
			`signature "MINE(INTEGER) INTEGER" has no implementation`},
		{AggregateDef{Name: "MINE", Overloads: []AggregateOverload{{Sig: "MINE(INTEGER) INTEGER", InitArgs: 2, New: newAgg}}},
			`signature "MINE(INTEGER) INTEGER": 2 init arguments but 1 parameters`},
		{AggregateDef{Name: "MINE", Overloads: []AggregateOverload{{Sig: "MINE(INTEGER, INTEGER...) INTEGER", InitArgs: 1, New: newAgg}}},
			`signature "MINE(INTEGER, INTEGER...) INTEGER": an init argument cannot be variadic`},
		{AggregateDef{Name: "MINE", Overloads: []AggregateOverload{{Sig: "MINE(NOPE) INTEGER", New: newAgg}}},
			`signature "MINE(NOPE) INTEGER": unknown type "NOPE"`},
	} {
		if err := NewAggregates().Add(c.def); err == nil || err.Error() != c.want {
			t.Errorf("Add(%s): %v, want %s", c.def.Overloads[0].Sig, err, c.want)
		}
	}
	if err := NewAggregates().Add(AggregateDef{Name: "mine", Overloads: []AggregateOverload{{Sig: "MINE(T) BIGINT", New: newAgg}}}); err != nil {
		t.Errorf("Add(MINE): %v", err)
	}
}

func TestAggregatesResolveErrors(t *testing.T) {
	r := NewAggregates()
	_, err := r.Resolve("NOPE", nil, nil)
	var unknown *UnknownFunctionError
	if !errors.As(err, &unknown) {
		t.Errorf("NOPE(): %v", err)
	}
	_, err = r.Resolve("SUM", ts(tStr), nil)
	var no *AggregateNoOverloadError
	if !errors.As(err, &no) || len(no.Candidates) != 4 {
		t.Errorf("SUM(STRING): %v", err)
	}
	if _, err = r.Resolve("COUNT", []*types.Type{nil}, nil); err == nil || !strings.Contains(err.Error(), "(LAMBDA)") {
		t.Errorf("COUNT(lambda): %v", err)
	}
	_, err = r.Resolve("EARLIEST_BY_OFFSET", ts(tInt, tInt), nil)
	var lit *ParamNotLiteralError
	if !errors.As(err, &lit) || lit.Index != 2 {
		t.Fatalf("EARLIEST_BY_OFFSET(F0, F0): %v", err)
	}
	lit.Expr = "F0"
	if want := "Parameter 2 passed to function EARLIEST_BY_OFFSET must be a literal constant, but was expression: 'F0'"; lit.Error() != want {
		t.Errorf("got %q, want %q", lit.Error(), want)
	}
}

func TestAggregatorAcceptsColumnOrAllArgs(t *testing.T) {
	agg, err := NewAggregates().Resolve("TOPK", ts(tBig, tInt), []any{int32(2)})
	if err != nil {
		t.Fatal(err)
	}
	acc, err := agg.Add(agg.Init(), []any{int64(1)})
	if err != nil {
		t.Fatal(err)
	}
	if acc, err = agg.Add(acc, []any{int64(5), int32(2)}); err != nil {
		t.Fatal(err)
	}
	if _, err = agg.Add(acc, []any{int64(5), int32(2), int32(2)}); err == nil {
		t.Errorf("Add with 3 arguments accepted")
	}
	if res, _ := agg.Result(acc); showAgg(res) != "[5, 1]" {
		t.Errorf("got %s", showAgg(res))
	}
}
