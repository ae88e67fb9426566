package planner

import (
	"strconv"
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// project expands the SELECT list into named projections and derives the
// output schema: projections of input key columns become key columns.
func (p *Planner) project(in Node, items []ast.SelectItem, scope expr.Scope, src *Source, ref *ast.TableRef) (*Project, error) {
	exprs, err := expandItems(items, in.Schema(), ref)
	if err != nil {
		return nil, err
	}
	if exprs, err = p.expandStructStars(exprs, scope); err != nil {
		return nil, err
	}
	n := &Project{Input: in}
	names := newNamer(in.Schema())
	for _, it := range exprs {
		e, asValue := unwrapAsValue(it.Expr)
		c, err := expr.Compile(e, scope, p.Registry)
		if err != nil {
			return nil, err
		}
		if c.Type().Kind == types.KindUnknown {
			return nil, sqlerr.New(sqlerr.Type, it.Expr.Position(), "Can't infer a type of null. Please explicitly cast it to a required type, e.g. CAST(null AS VARCHAR).")
		}
		name, err := names.name(it)
		if err != nil {
			return nil, err
		}
		key := !asValue && isKeyRef(e, in.Schema(), ref)
		n.Columns = append(n.Columns, Projection{Name: name, Expr: it.Expr, Eval: c, Key: key})
	}
	n.schema = projectSchema(n.Columns)
	return n, nil
}

// expandItems replaces `*`, `src.*` and `struct->*` items by one item per
// column or field.
func expandItems(items []ast.SelectItem, in *types.Schema, ref *ast.TableRef) ([]ast.SelectItem, error) {
	var out []ast.SelectItem
	for _, it := range items {
		switch {
		case it.Star && it.Source != "" && it.Source != ref.Name && it.Source != ref.Alias:
			return nil, sqlerr.New(sqlerr.Unknown, it.P, "Source %s does not exist in the FROM clause", it.Source)
		case it.Star:
			for _, c := range in.Columns {
				out = append(out, ast.SelectItem{P: it.P, Expr: &ast.ColumnRef{P: it.P, Name: c.Name}})
			}
		case it.StructStar:
			out = append(out, it)
		default:
			out = append(out, it)
		}
	}
	return out, nil
}

// unwrapAsValue strips AS_VALUE(x): the column is copied into the value
// instead of staying a key.
func unwrapAsValue(e ast.Expr) (ast.Expr, bool) {
	if c, ok := e.(*ast.Call); ok && c.Name == "AS_VALUE" && len(c.Args) == 1 {
		return c.Args[0], true
	}
	return e, false
}

// expandStructStars replaces `s->*` by one `s->f` item per field of s.
func (p *Planner) expandStructStars(items []ast.SelectItem, scope expr.Scope) ([]ast.SelectItem, error) {
	var out []ast.SelectItem
	for _, it := range items {
		if !it.StructStar {
			out = append(out, it)
			continue
		}
		c, err := expr.Compile(it.Expr, scope, p.Registry)
		if err != nil {
			return nil, err
		}
		t := c.Type()
		if t.Kind != types.KindStruct {
			return nil, sqlerr.New(sqlerr.Type, it.P, "Expected STRUCT type for %s->*, got %s", ast.FormatExpr(it.Expr), t)
		}
		for _, f := range t.Fields {
			out = append(out, ast.SelectItem{P: it.P, Expr: &ast.Dereference{P: it.P, Base: it.Expr, Field: f.Name}})
		}
	}
	return out, nil
}

// isKeyRef reports whether e is a plain reference to an input key column.
func isKeyRef(e ast.Expr, in *types.Schema, ref *ast.TableRef) bool {
	c, ok := e.(*ast.ColumnRef)
	if !ok || (c.Source != "" && c.Source != ref.Name && c.Source != ref.Alias) {
		return false
	}
	i := in.Find(c.Name)
	return i >= 0 && in.Columns[i].NS == types.KeyNS
}

func projectSchema(cols []Projection) *types.Schema {
	s := &types.Schema{}
	for _, key := range []bool{true, false} {
		for _, c := range cols {
			if c.Key == key {
				ns := types.ValueNS
				if key {
					ns = types.KeyNS
				}
				s.Columns = append(s.Columns, types.Column{Name: c.Name, Type: c.Eval.Type(), NS: ns})
			}
		}
	}
	return s
}

// checkPersistent enforces ksqlDB's rules for the projection of a query
// that writes a sink: every source key column is selected, at least one
// value column remains, and no output column is named like a system
// column.
func checkPersistent(n *Project, src *Source, sink string) error {
	for _, c := range n.Columns {
		if IsPseudoColumn(c.Name) {
			if _, isRef := c.Expr.(*ast.ColumnRef); isRef && c.Expr.(*ast.ColumnRef).Name == c.Name {
				return sqlerr.New(sqlerr.Semantic, c.Expr.Position(), "Reserved column name in select: `%s`. Please remove or alias the column.", c.Name)
			}
			return sqlerr.New(sqlerr.Semantic, c.Expr.Position(), "`%s` is a reserved column name. You cannot use it as an alias for a column.", c.Name)
		}
	}
	if err := checkKeys(n, src, sink); err != nil {
		return err
	}
	if len(n.Schema().Values()) == 0 {
		return sqlerr.New(sqlerr.Semantic, ast.Pos{}, "The projection contains no value columns.")
	}
	return nil
}

func checkKeys(n *Project, src *Source, sink string) error {
	selected := map[string]bool{}
	for _, c := range n.Columns {
		if c.Key {
			selected[c.Expr.(*ast.ColumnRef).Name] = true
		}
	}
	var missing []string
	for _, k := range src.Schema.Keys() {
		if !selected[k.Name] {
			missing = append(missing, k.Name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	noun := "column"
	if len(missing) > 1 {
		noun = "columns"
	}
	return sqlerr.New(sqlerr.Semantic, ast.Pos{}, "The query used to build `%s` must include the key %s %s in its projection (eg, SELECT %s...).",
		sink, noun, strings.Join(missing, " and "), strings.Join(missing, ", "))
}

// namer assigns output column names as ksqlDB does: the alias, the column
// or struct field name, or KSQL_COL_n; clashing derived names get _1, _2….
type namer struct {
	used   map[string]bool
	source map[string]bool // input column names: struct field names avoid them
	gen    int
}

func newNamer(in *types.Schema) *namer {
	n := &namer{used: map[string]bool{}, source: map[string]bool{}}
	for _, c := range in.Columns {
		n.source[c.Name] = true
	}
	return n
}

func (n *namer) name(it ast.SelectItem) (string, error) {
	if it.Alias != "" {
		if n.used[it.Alias] {
			return "", sqlerr.New(sqlerr.Semantic, it.P, "Duplicate value columns found in schema: `%s`", it.Alias)
		}
		n.used[it.Alias] = true
		return it.Alias, nil
	}
	base := derivedName(it.Expr)
	if base == "" {
		base = "KSQL_COL_" + strconv.Itoa(n.gen)
		n.gen++
	}
	_, isField := it.Expr.(*ast.Dereference)
	taken := func(name string) bool { return n.used[name] || (isField && n.source[name]) }
	name := base
	for i := 1; taken(name); i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	n.used[name] = true
	return name, nil
}

func derivedName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.ColumnRef:
		return e.Name
	case *ast.Dereference:
		return e.Field
	}
	return ""
}

// sinkSource builds the catalog entry for the target of CREATE … AS SELECT.
func (p *Planner) sinkSource(s *ast.CreateAsSelect, plan *Plan) (*Source, error) {
	w, err := newWithProps(s.Props)
	if err != nil {
		return nil, err
	}
	from := plan.Sources[0]
	sink := &Source{Name: s.Name, Kind: s.Kind, Schema: plan.Root.Schema(), Topic: s.Name, SQL: s.Text(), Partitions: from.Partitions, Replicas: from.Replicas}
	if t, _, ok := w.str("KAFKA_TOPIC"); ok {
		sink.Topic = t
	}
	if err := p.applyCommon(sink, w, from); err != nil {
		return nil, err
	}
	if sink.Schema.NumKeys() == 0 && !w.has("KEY_FORMAT") && !w.has("FORMAT") {
		sink.KeyFormat.Name = "NONE"
	}
	return sink, p.validateSource(sink, s.P)
}
