package parser

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
)

// dump renders a statement as a compact, indented tree with the position
// of every expression, for the golden files.
func dump(s ast.Statement) string {
	d := &dumper{}
	d.stmt(s)
	return d.b.String()
}

type dumper struct {
	b     strings.Builder
	depth int
}

func (d *dumper) line(format string, args ...any) {
	d.b.WriteString(strings.Repeat("  ", d.depth))
	fmt.Fprintf(&d.b, format, args...)
	d.b.WriteString("\n")
}

func pos(p ast.Pos) string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

func (d *dumper) stmt(s ast.Statement) {
	switch s := s.(type) {
	case *ast.CreateSource:
		d.line("create-source@%s %s %q replace=%v source=%v if-not-exists=%v%s", pos(s.P), s.Kind, s.Name, s.OrReplace, s.Source, s.IfNotExists, map[bool]string{true: " global=true"}[s.Global])
		d.depth++
		for _, c := range s.Columns {
			d.line("column@%s %q %s constraint=%d header=%q", pos(c.P), c.Name, c.Type, c.Constraint, c.HeaderKey)
		}
		d.props(s.Props)
		d.depth--
	case *ast.CreateAsSelect:
		d.line("create-as-select@%s %s %q replace=%v if-not-exists=%v", pos(s.P), s.Kind, s.Name, s.OrReplace, s.IfNotExists)
		d.depth++
		d.props(s.Props)
		d.stmt(s.Query)
		d.depth--
	case *ast.InsertInto:
		d.line("insert-into@%s %q", pos(s.P), s.Target)
		d.depth++
		d.props(s.Props)
		d.stmt(s.Query)
		d.depth--
	case *ast.InsertValues:
		d.line("insert-values@%s %q columns=%q", pos(s.P), s.Target, s.Columns)
		d.exprs("values", s.Values)
	case *ast.Query:
		d.query(s)
	case *ast.Explain:
		d.line("explain@%s query-id=%q", pos(s.P), s.QueryID)
		if s.Statement != nil {
			d.depth++
			d.stmt(s.Statement)
			d.depth--
		}
	default:
		d.line("%s@%s %s", reflect.TypeOf(s).Elem().Name(), pos(stmtPos(s)), fields(s))
	}
}

func stmtPos(s ast.Statement) ast.Pos {
	return reflect.ValueOf(s).Elem().FieldByName("Base").Interface().(ast.Base).P
}

// fields prints a statement's fields other than Base.
func fields(s ast.Statement) string {
	v := reflect.ValueOf(s).Elem()
	var parts []string
	for i := 0; i < v.NumField(); i++ {
		if f := v.Type().Field(i); f.Name != "Base" {
			parts = append(parts, fmt.Sprintf("%s=%v", f.Name, v.Field(i).Interface()))
		}
	}
	return strings.Join(parts, " ")
}

func (d *dumper) props(ps ast.Properties) {
	for _, p := range ps {
		d.line("property@%s %s = %s", pos(p.P), p.Name, d.lit(p.Value))
	}
}

func (d *dumper) lit(l *ast.Literal) string {
	return fmt.Sprintf("lit@%s %s %s", pos(l.P), l.Type, ast.FormatExpr(l))
}

func (d *dumper) query(q *ast.Query) {
	d.line("query@%s emit=%d limit=%d", pos(q.P), q.Emit, q.Limit)
	d.depth++
	defer func() { d.depth-- }()
	for _, it := range q.Items {
		d.line("item@%s star=%v source=%q struct-star=%v alias=%q", pos(it.P), it.Star, it.Source, it.StructStar, it.Alias)
		if it.Expr != nil {
			d.depth++
			d.expr(it.Expr)
			d.depth--
		}
	}
	d.relation(q.From)
	if w := q.Window; w != nil {
		d.line("window@%s kind=%d size=%d advance=%d grace=%d retention=%d", pos(w.P), w.Kind, w.Size, w.Advance, w.Grace, w.Retention)
	}
	d.exprs("where", nonNil(q.Where))
	d.exprs("group-by", q.GroupBy)
	d.exprs("partition-by", q.PartitionBy)
	d.exprs("having", nonNil(q.Having))
}

func nonNil(e ast.Expr) []ast.Expr {
	if e == nil {
		return nil
	}
	return []ast.Expr{e}
}

func (d *dumper) exprs(label string, es []ast.Expr) {
	if len(es) == 0 {
		return
	}
	d.line("%s", label)
	d.depth++
	for _, e := range es {
		d.expr(e)
	}
	d.depth--
}

func (d *dumper) relation(r ast.Relation) {
	switch r := r.(type) {
	case *ast.TableRef:
		d.line("table@%s %q alias=%q", pos(r.P), r.Name, r.Alias)
	case *ast.Join:
		w := "none"
		if r.Within != nil {
			w = fmt.Sprintf("%d/%d grace=%d", r.Within.Before, r.Within.After, r.Within.Grace)
		}
		if r.AsOf != nil {
			w += fmt.Sprintf(" as-of@%s=%s grace=%d", pos(r.AsOf.P), ast.FormatExpr(r.AsOf.Time), r.AsOf.Grace)
		}
		d.line("join@%s type=%d within=%s", pos(r.P), r.Type, w)
		d.depth++
		d.relation(r.Left)
		d.relation(r.Right)
		d.exprs("on", []ast.Expr{r.On})
		d.depth--
	}
}

// expr writes one node per line: kind@line:col details, children indented.
func (d *dumper) expr(e ast.Expr) {
	head, kids := describe(e)
	d.line("%s@%s", head, pos(e.Position()))
	d.depth++
	for _, k := range kids {
		d.expr(k)
	}
	d.depth--
}

func describe(e ast.Expr) (string, []ast.Expr) {
	switch e := e.(type) {
	case *ast.Literal:
		return fmt.Sprintf("lit %s %s", e.Type, ast.FormatExpr(e)), nil
	case *ast.ColumnRef:
		return fmt.Sprintf("col %q.%q", e.Source, e.Name), nil
	case *ast.Dereference:
		return fmt.Sprintf("deref %q", e.Field), []ast.Expr{e.Base}
	case *ast.Subscript:
		return "subscript", []ast.Expr{e.Base, e.Index}
	case *ast.Binary:
		return "binary " + e.Op.String(), []ast.Expr{e.L, e.R}
	case *ast.Unary:
		return "unary " + [...]string{ast.OpNot: "NOT", ast.OpNeg: "-", ast.OpPlus: "+"}[e.Op], []ast.Expr{e.X}
	case *ast.Like:
		return fmt.Sprintf("like not=%v", e.Not), append([]ast.Expr{e.X, e.Pattern}, nonNil(e.Escape)...)
	case *ast.In:
		return fmt.Sprintf("in not=%v", e.Not), append([]ast.Expr{e.X}, e.List...)
	case *ast.Between:
		return fmt.Sprintf("between not=%v", e.Not), []ast.Expr{e.X, e.Lo, e.Hi}
	case *ast.IsNull:
		return fmt.Sprintf("is-null not=%v", e.Not), []ast.Expr{e.X}
	}
	return describeMore(e)
}

func describeMore(e ast.Expr) (string, []ast.Expr) {
	switch e := e.(type) {
	case *ast.Case:
		kids := nonNil(e.Operand)
		for _, w := range e.Whens {
			kids = append(kids, w.Cond, w.Result)
		}
		return fmt.Sprintf("case operand=%v whens=%d else=%v", e.Operand != nil, len(e.Whens), e.Else != nil), append(kids, nonNil(e.Else)...)
	case *ast.Cast:
		return "cast " + e.To.String(), []ast.Expr{e.X}
	case *ast.Call:
		return fmt.Sprintf("call %s star=%v distinct=%v", e.Name, e.Star, e.Distinct), e.Args
	case *ast.Lambda:
		return fmt.Sprintf("lambda %q", e.Params), []ast.Expr{e.Body}
	case *ast.ArrayCtor:
		return "array", e.Elems
	case *ast.MapCtor:
		var kids []ast.Expr
		for i := range e.Keys {
			kids = append(kids, e.Keys[i], e.Values[i])
		}
		return "map", kids
	case *ast.StructCtor:
		return fmt.Sprintf("struct %q", e.Names), e.Values
	case *ast.AtTimeZone:
		return fmt.Sprintf("at-time-zone %q", e.Zone), []ast.Expr{e.X}
	}
	return fmt.Sprintf("%T", e), nil
}
