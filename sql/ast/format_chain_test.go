package ast

import (
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

// TestFormatChain: a left-associative chain prints as ksqlDB prints it,
// every link in parentheses, up to flatChain links, and in one pair past
// that; other operators inside keep their own parentheses.
func TestFormatChain(t *testing.T) {
	one := &Literal{Type: types.IntegerType, Value: int32(1)}
	chain := func(n int, op BinaryOp) Expr {
		var e Expr = one
		for range n {
			e = &Binary{Op: op, L: e, R: &Binary{Op: OpMul, L: one, R: one}}
		}
		return e
	}
	if got := FormatExpr(chain(2, OpAdd)); got != "((1 + (1 * 1)) + (1 * 1))" {
		t.Errorf("2 links: %s", got)
	}
	if got := FormatExpr(chain(flatChain, OpSub)); !strings.HasPrefix(got, strings.Repeat("(", flatChain)+"1 - ") {
		t.Errorf("%d links: %.60s…", flatChain, got)
	}
	want := "(1" + strings.Repeat(" + (1 * 1)", flatChain+1) + ")"
	if got := FormatExpr(chain(flatChain+1, OpAdd)); got != want {
		t.Errorf("%d links: %s", flatChain+1, got)
	}
	mixed := &Binary{Op: OpOr, L: &Binary{Op: OpAnd, L: one, R: one}, R: one}
	if got := FormatExpr(mixed); got != "((1 AND 1) OR 1)" {
		t.Errorf("AND under OR: %s", got)
	}
}
