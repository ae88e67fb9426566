package planner

import (
	"strconv"
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/types"
)

// implicitCasts returns q with each numeric literal selected into a
// DECIMAL column of target cast to that column's type, as ksqlDB's
// ImplicitlyCastResolver does for INSERT INTO: `SELECT 1 AS c1` fills a
// DECIMAL(5,2) column. A literal is cast only when its own decimal type
// fits the column's (no integer digit or fraction digit lost); any other
// item is left to the schema check. q itself is not changed.
func implicitCasts(q *ast.Query, target *Source) *ast.Query {
	var out *ast.Query
	for i, it := range q.Items {
		lit, ok := it.Expr.(*ast.Literal)
		if !ok || it.Alias == "" {
			continue
		}
		c := target.Schema.Find(it.Alias)
		if c < 0 || target.Schema.Columns[c].Type.Kind != types.KindDecimal {
			continue
		}
		to := target.Schema.Columns[c].Type
		from, ok := literalDecimal(lit)
		if !ok || !canImplicitlyCast(from, to) {
			continue
		}
		if out == nil {
			cp := *q
			cp.Items = append([]ast.SelectItem(nil), q.Items...)
			out = &cp
		}
		out.Items[i].Expr = &ast.Cast{P: lit.P, X: lit, To: to}
	}
	if out == nil {
		return q
	}
	return out
}

// literalDecimal is the decimal type of a numeric literal's value, as
// Java's BigDecimal of it has (an INTEGER 12 is DECIMAL(2,0), a DOUBLE 2.5
// DECIMAL(2,1), a DECIMAL literal its own type).
func literalDecimal(lit *ast.Literal) (*types.Type, bool) {
	if lit.Type == nil {
		return nil, false
	}
	switch lit.Type.Kind {
	case types.KindDecimal:
		return lit.Type, true
	case types.KindInteger, types.KindBigint:
		var v int64
		switch x := lit.Value.(type) {
		case int32:
			v = int64(x)
		case int64:
			v = x
		default:
			return nil, false
		}
		digits := len(strconv.FormatInt(v, 10))
		if v < 0 {
			digits--
		}
		return types.DecimalOf(digits, 0), true
	case types.KindDouble:
		f, ok := lit.Value.(float64)
		if !ok {
			return nil, false
		}
		return decimalOfText(strconv.FormatFloat(f, 'f', -1, 64))
	}
	return nil, false
}

// decimalOfText is the precision and scale of a plain decimal number
// (Java's BigDecimal: "2" is (1,0), "2.5" (2,1), "0.05" (1,2)).
func decimalOfText(s string) (*types.Type, bool) {
	s = strings.TrimPrefix(s, "-")
	intPart, frac, _ := strings.Cut(s, ".")
	if strings.ContainsAny(s, "eE") {
		return nil, false
	}
	if frac == "" {
		frac = "0" // BigDecimal.valueOf(2.0) is 2.0: scale 1
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		digits = "0"
	}
	return types.DecimalOf(max(len(digits), len(frac)), len(frac)), true
}

// canImplicitlyCast reports whether every value of decimal type from is a
// value of decimal type to (ksqlDB's DecimalUtil.canImplicitlyCast).
func canImplicitlyCast(from, to *types.Type) bool {
	return from.Scale <= to.Scale && from.Precision-from.Scale <= to.Precision-to.Scale
}
