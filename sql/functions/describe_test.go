package functions

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/sqlstream/sqlstream/sql/types"
)

// TestDescribeGolden pins what SHOW FUNCTIONS and DESCRIBE FUNCTION are
// built from, and how calls resolve:
//
//	show [category=…]          one line per function: NAME KIND CATEGORY
//	describe NAME              the overloads: NAME(args) → RETURN: description
//	resolve                    one call per line: NAME(TYPE, …) → params → return
func TestDescribeGolden(t *testing.T) {
	r := NewRegistry()
	datadriven.RunTest(t, "testdata/describe", func(t *testing.T, td *datadriven.TestData) string {
		switch td.Cmd {
		case "show":
			return showFunctions(r, td)
		case "describe":
			return describeFunctions(r, td.CmdArgs)
		case "resolve":
			return resolveCalls(t, r, td.Input)
		}
		t.Fatalf("unknown command %s", td.Cmd)
		return ""
	})
}

func showFunctions(r *Registry, td *datadriven.TestData) string {
	var cat string
	for _, a := range td.CmdArgs {
		if a.Key == "category" && len(a.Vals) > 0 {
			cat = a.Vals[0]
		}
	}
	var b strings.Builder
	for _, f := range r.Functions() {
		if cat == "" || strings.EqualFold(string(f.Category), strings.ReplaceAll(cat, "_", " ")) {
			fmt.Fprintf(&b, "%s %s %s\n", f.Name, f.Kind, f.Category)
		}
	}
	return b.String()
}

func describeFunctions(r *Registry, args []datadriven.CmdArg) string {
	var b strings.Builder
	for _, a := range args {
		ovs, ok := r.Describe(a.Key)
		if !ok {
			fmt.Fprintf(&b, "%s: not a scalar function\n", a.Key)
			continue
		}
		for _, o := range ovs {
			fmt.Fprintf(&b, "%s(%s) → %s: %s\n", strings.ToUpper(a.Key), argText(o.Arguments), o.ReturnType, o.Description)
		}
	}
	return b.String()
}

func argText(args []Argument) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = strings.TrimSpace(a.Type + " " + a.Name)
		if a.Variadic {
			parts[i] += "..."
		}
	}
	return strings.Join(parts, ", ")
}

func resolveCalls(t *testing.T, r *Registry, input string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(input), "\n") {
		name, args := parseCall(t, line)
		res, err := r.Resolve(name, args)
		if err != nil {
			msg, _, _ := strings.Cut(err.Error(), "\n")
			fmt.Fprintf(&b, "%s → error: %s\n", line, msg)
			continue
		}
		fmt.Fprintf(&b, "%s → (%s) %s\n", line, typeList(res.Params), res.Return)
	}
	return b.String()
}

// parseCall reads "NAME(TYPE, …)" with ksqlDB type names; NULL is an
// untyped NULL.
func parseCall(t *testing.T, s string) (string, []*types.Type) {
	name, rest, _ := strings.Cut(s, "(")
	rest = strings.TrimSuffix(strings.TrimSpace(rest), ")")
	var args []*types.Type
	if strings.TrimSpace(rest) == "" {
		return name, nil
	}
	l := &sigLexer{toks: lexSignature(rest)}
	for {
		if l.peek() == "NULL" {
			l.next()
			args = append(args, types.UnknownType)
		} else {
			p, err := parsePattern(l)
			if err != nil {
				t.Fatalf("%s: %v", s, err)
			}
			args = append(args, (&binder{vars: map[string]*types.Type{}}).instantiate(p, nil))
		}
		if l.next() != "," {
			return name, args
		}
	}
}
