package expr

import (
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
)

// FormatExpr renders e as ksqlDB prints expressions in messages and
// generated names: binary operations parenthesized, string literals
// quoted, e.g. "(COL0 + 1)", "SUBSTRING(S, 1, 2)".
func FormatExpr(e ast.Expr) string {
	var b strings.Builder
	formatExpr(&b, e)
	return b.String()
}

func formatExpr(b *strings.Builder, e ast.Expr) {
	switch e := e.(type) {
	case *ast.Literal:
		formatLiteral(b, e)
	case *ast.ColumnRef:
		if e.Source != "" {
			b.WriteString(formatIdent(e.Source) + ".")
		}
		b.WriteString(formatIdent(e.Name))
	case *ast.Binary:
		b.WriteByte('(')
		formatExpr(b, e.L)
		b.WriteString(" " + e.Op.String() + " ")
		formatExpr(b, e.R)
		b.WriteByte(')')
	case *ast.Unary:
		formatUnary(b, e)
	case *ast.Call:
		formatCall(b, e)
	case *ast.Cast:
		b.WriteString("CAST(")
		formatExpr(b, e.X)
		b.WriteString(" AS " + e.To.String() + ")")
	default:
		formatPredicate(b, e)
	}
}

func formatLiteral(b *strings.Builder, e *ast.Literal) {
	switch v := e.Value.(type) {
	case nil:
		b.WriteString("null")
	case string:
		b.WriteString("'" + strings.ReplaceAll(v, "'", "''") + "'")
	default:
		b.WriteString(JavaString(v))
	}
}

// formatIdent quotes identifiers that are not plain upper-case words.
func formatIdent(s string) string {
	for i, r := range s {
		if !(r >= 'A' && r <= 'Z' || r == '_' || i > 0 && r >= '0' && r <= '9') {
			return "`" + s + "`"
		}
	}
	return s
}

func formatUnary(b *strings.Builder, e *ast.Unary) {
	switch e.Op {
	case ast.OpNot:
		b.WriteString("(NOT ")
		formatExpr(b, e.X)
		b.WriteByte(')')
	case ast.OpNeg:
		b.WriteByte('-')
		formatExpr(b, e.X)
	default:
		b.WriteByte('+')
		formatExpr(b, e.X)
	}
}

func formatCall(b *strings.Builder, e *ast.Call) {
	b.WriteString(e.Name + "(")
	if e.Distinct {
		b.WriteString("DISTINCT ")
	}
	if e.Star {
		b.WriteByte('*')
	}
	formatList(b, e.Args)
	b.WriteByte(')')
}

func formatList(b *strings.Builder, es []ast.Expr) {
	for i, a := range es {
		if i > 0 {
			b.WriteString(", ")
		}
		formatExpr(b, a)
	}
}

func not(b *strings.Builder, yes bool) {
	if yes {
		b.WriteString(" NOT")
	}
}

func formatPredicate(b *strings.Builder, e ast.Expr) {
	switch e := e.(type) {
	case *ast.Like:
		b.WriteByte('(')
		formatExpr(b, e.X)
		not(b, e.Not)
		b.WriteString(" LIKE ")
		formatExpr(b, e.Pattern)
		if e.Escape != nil {
			b.WriteString(" ESCAPE ")
			formatExpr(b, e.Escape)
		}
		b.WriteByte(')')
	case *ast.In:
		b.WriteByte('(')
		formatExpr(b, e.X)
		not(b, e.Not)
		b.WriteString(" IN (")
		formatList(b, e.List)
		b.WriteString("))")
	case *ast.Between:
		b.WriteByte('(')
		formatExpr(b, e.X)
		not(b, e.Not)
		b.WriteString(" BETWEEN ")
		formatExpr(b, e.Lo)
		b.WriteString(" AND ")
		formatExpr(b, e.Hi)
		b.WriteByte(')')
	case *ast.IsNull:
		b.WriteByte('(')
		formatExpr(b, e.X)
		b.WriteString(" IS")
		not(b, e.Not)
		b.WriteString(" NULL)")
	default:
		formatStructural(b, e)
	}
}

func formatStructural(b *strings.Builder, e ast.Expr) {
	switch e := e.(type) {
	case *ast.Case:
		formatCase(b, e)
	case *ast.Subscript:
		formatExpr(b, e.Base)
		b.WriteByte('[')
		formatExpr(b, e.Index)
		b.WriteByte(']')
	case *ast.Dereference:
		formatExpr(b, e.Base)
		b.WriteString("->" + formatIdent(e.Field))
	case *ast.ArrayCtor:
		b.WriteString("ARRAY[")
		formatList(b, e.Elems)
		b.WriteByte(']')
	case *ast.MapCtor:
		b.WriteString("MAP(")
		for i := range e.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			formatExpr(b, e.Keys[i])
			b.WriteString(":=")
			formatExpr(b, e.Values[i])
		}
		b.WriteByte(')')
	default:
		formatOther(b, e)
	}
}

func formatOther(b *strings.Builder, e ast.Expr) {
	switch e := e.(type) {
	case *ast.StructCtor:
		b.WriteString("STRUCT(")
		for i := range e.Names {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(formatIdent(e.Names[i]) + ":=")
			formatExpr(b, e.Values[i])
		}
		b.WriteByte(')')
	case *ast.Lambda:
		b.WriteString("(" + strings.Join(e.Params, ", ") + ") => ")
		formatExpr(b, e.Body)
	case *ast.AtTimeZone:
		formatExpr(b, e.X)
		b.WriteString(" AT TIME ZONE '" + e.Zone + "'")
	}
}

func formatCase(b *strings.Builder, e *ast.Case) {
	b.WriteString("(CASE")
	if e.Operand != nil {
		b.WriteByte(' ')
		formatExpr(b, e.Operand)
	}
	for _, w := range e.Whens {
		b.WriteString(" WHEN ")
		formatExpr(b, w.Cond)
		b.WriteString(" THEN ")
		formatExpr(b, w.Result)
	}
	if e.Else != nil {
		b.WriteString(" ELSE ")
		formatExpr(b, e.Else)
	}
	b.WriteString(" END)")
}
