package parser

import (
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// numberLiteral turns a number token into a literal: INTEGER when it fits
// 32 bits, BIGINT when it fits 64 (larger integers are an error, as in
// ksqlDB), DECIMAL for 1.5-style, DOUBLE for 1e3-style.
func (p *parser) numberLiteral(t token) (*ast.Literal, error) {
	text := t.Val
	if strings.ContainsAny(text, "eE") {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, p.errAt(t, sqlerr.Syntax, "Number overflows DOUBLE: %s", text)
		}
		return &ast.Literal{P: t.P, Value: f, Type: types.DoubleType}, nil
	}
	if !strings.Contains(text, ".") {
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return nil, p.errAt(t, sqlerr.Syntax, "Invalid numeric literal: %s", text)
		}
		return intLiteral(t.P, n), nil
	}
	return p.decimalLiteral(t, text)
}

// intLiteral returns an INTEGER literal when n fits 32 bits, else BIGINT.
func intLiteral(pos ast.Pos, n int64) *ast.Literal {
	if n >= -1<<31 && n < 1<<31 {
		return &ast.Literal{P: pos, Value: int32(n), Type: types.IntegerType}
	}
	return &ast.Literal{P: pos, Value: n, Type: types.BigintType}
}

// decimalLiteral parses text as a DECIMAL whose precision and scale come
// from its digits, as ksqlDB does (0.05 is DECIMAL(2, 2)).
func (p *parser) decimalLiteral(t token, text string) (*ast.Literal, error) {
	d, _, err := apd.NewFromString(strings.TrimSpace(text))
	if err != nil || d.Form != apd.Finite {
		return nil, p.errAt(t, sqlerr.Syntax, "invalid decimal %q", text)
	}
	prec, scale := decimalShape(d)
	return &ast.Literal{P: t.P, Value: d, Type: types.DecimalOf(prec, scale)}, nil
}

// decimalShape returns the precision and scale of d.
func decimalShape(d *apd.Decimal) (int, int) {
	scale := 0
	if d.Exponent < 0 {
		scale = int(-d.Exponent)
	}
	digits := int(d.NumDigits())
	if d.Exponent > 0 {
		digits += int(d.Exponent)
	}
	if d.Coeff.Sign() == 0 {
		digits = 1
	}
	return max(digits, scale, 1), scale
}

// literalOf turns a literal token (number, string, TRUE, FALSE, NULL)
// into a literal; ok is false for other tokens.
func (p *parser) literalOf(t token) (*ast.Literal, bool, error) {
	switch {
	case t.Kind == tNumber:
		l, err := p.numberLiteral(t)
		return l, true, err
	case t.Kind == tString:
		return &ast.Literal{P: t.P, Value: t.Val, Type: types.StringType}, true, nil
	case t.is("TRUE"), t.is("FALSE"):
		return &ast.Literal{P: t.P, Value: t.Val == "TRUE", Type: types.BooleanType}, true, nil
	case t.is("NULL"):
		return &ast.Literal{P: t.P, Type: types.UnknownType}, true, nil
	}
	return nil, false, nil
}

// negate returns -l for a numeric literal.
func negate(l *ast.Literal, pos ast.Pos) *ast.Literal {
	switch v := l.Value.(type) {
	case int32:
		return intLiteral(pos, -int64(v))
	case int64:
		return intLiteral(pos, -v)
	case float64:
		return &ast.Literal{P: pos, Value: -v, Type: l.Type}
	case *apd.Decimal:
		return &ast.Literal{P: pos, Value: new(apd.Decimal).Neg(v), Type: l.Type}
	}
	return nil
}
