package expr

import (
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/types"
)

// TestDecimalArithWithIntegerOperands: an integer operand of DECIMAL
// arithmetic (Nexmark q1's 0.908 * price) is converted into a decimal on
// the evaluation's stack, so the result, rounded to the expression's
// scale, is the only allocation; the results are what they were (an
// INT, a BIGINT and a DECIMAL column, on either side, and past int32).
func TestDecimalArithWithIntegerOperands(t *testing.T) {
	s := &types.Schema{Columns: []types.Column{
		{Name: "PRICE", Type: types.BigintType}, {Name: "N", Type: types.IntegerType}, {Name: "D", Type: types.DecimalOf(5, 2)},
	}}
	row := &types.Row{Values: []any{int64(94562), int32(-7), apd.New(12345, -2)}}
	for text, want := range map[string]string{
		"0.908 * PRICE":    "85862.296",
		"PRICE * 0.908":    "85862.296",
		"N - 1.25":         "-8.25",
		"D * N":            "-864.15",
		"D + PRICE":        "94685.45",
		"PRICE / 4.0":      "23640.500000",
		"0.1 * 3000000000": "300000000.0",
	} {
		v, err := mustCompile(t, text, s).Eval(row)
		d, ok := v.(*apd.Decimal)
		if err != nil || !ok || d.String() != want {
			t.Errorf("%s = %v (%T), %v; want %s", text, v, v, err, want)
		}
	}
	c := mustCompile(t, "0.908 * PRICE", s)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := c.Eval(row); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Errorf("0.908 * PRICE costs %.0f allocations, want 1 (the result)", allocs)
	}
}
