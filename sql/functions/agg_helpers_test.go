package functions

import (
	"encoding/base64"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/types"
)

// aggOp is one row fed to an aggregator: added, or undone (a table row
// leaving the group).
type aggOp struct {
	undo bool
	args []any
}

func addRow(args ...any) aggOp  { return aggOp{args: args} }
func undoRow(args ...any) aggOp { return aggOp{undo: true, args: args} }

// aggCase feeds ops to a resolved aggregate and expects the rendered
// result after each op (or the error text of the op that fails).
type aggCase struct {
	name string
	fn   string
	args []*types.Type
	init []any
	ops  []aggOp
	want []string
}

func runAggCases(t *testing.T, reg *Aggregates, cases []aggCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			agg, err := reg.Resolve(c.fn, c.args, c.init)
			if err != nil {
				t.Fatalf("resolve: %v", err)
			}
			got := feed(agg, agg.Init(), c.ops)
			if strings.Join(got, " | ") != strings.Join(c.want, " | ") {
				t.Errorf("got  %s\nwant %s", strings.Join(got, " | "), strings.Join(c.want, " | "))
			}
		})
	}
}

// feed applies ops from acc and renders the result after each, stopping
// at the first error.
func feed(agg Aggregator, acc any, ops []aggOp) []string {
	var out []string
	for _, op := range ops {
		var err error
		if op.undo {
			acc, err = agg.(Undoer).Undo(acc, op.args)
		} else {
			acc, err = agg.Add(acc, op.args)
		}
		if err != nil {
			return append(out, "error: "+err.Error())
		}
		res, err := agg.Result(acc)
		if err != nil {
			return append(out, "error: "+err.Error())
		}
		out = append(out, showAgg(res))
	}
	return out
}

// accumulate returns the accumulator after adding each row.
func accumulate(t *testing.T, agg Aggregator, rows ...[]any) any {
	t.Helper()
	acc := agg.Init()
	for _, r := range rows {
		var err error
		if acc, err = agg.Add(acc, r); err != nil {
			t.Fatalf("add %v: %v", r, err)
		}
	}
	return acc
}

// show renders a value the way the QTT files print them: decimals in
// plain notation, bytes in base64, structs and maps in braces (map keys
// sorted), NULL as null.
func showAgg(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case *apd.Decimal:
		return x.Text('f')
	case []byte:
		return base64.StdEncoding.EncodeToString(x)
	case string:
		return strconv.Quote(x)
	case float64:
		if math.Abs(x) < 1e15 {
			return strconv.FormatFloat(x, 'f', -1, 64)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = showAgg(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		return showAggMap(x)
	case *types.StructValue:
		parts := make([]string, len(x.Values))
		for i, e := range x.Values {
			parts[i] = x.Type.Fields[i].Name + ": " + showAgg(e)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

func showAggMap(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = strconv.Quote(k) + ": " + showAgg(m[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func aggDec(s string) *apd.Decimal {
	d, _, err := apd.NewFromString(s)
	if err != nil {
		panic(err)
	}
	return d
}

func strs(s ...string) []string { return s }

var (
	tInt  = types.IntegerType
	tBig  = types.BigintType
	tDbl  = types.DoubleType
	tStr  = types.StringType
	tBool = types.BooleanType
)

func ts(t ...*types.Type) []*types.Type { return t }
