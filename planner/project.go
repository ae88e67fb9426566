package planner

import (
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// project expands the SELECT list into named projections and derives the
// output schema: projections of input key columns become key columns.
func (p *Planner) project(in Node, items []ast.SelectItem, scope expr.Scope, src *Source, ref *ast.TableRef, bounds bool) (*Project, error) {
	exprs, err := expandItems(items, starColumns(in), ref, bounds)
	if err != nil {
		return nil, err
	}
	if exprs, err = p.expandStructStars(in, exprs, scope); err != nil {
		return nil, err
	}
	n := &Project{Input: in}
	names := newNamer(src.Schema)
	for _, it := range exprs {
		e, asValue := unwrapAsValue(it.Expr)
		c, err := expr.Compile(readFlatMap(in, e), scope, p.Registry)
		if err != nil {
			return nil, inClause(err, "SELECT")
		}
		if c.Type().Kind == types.KindUnknown {
			return nil, sqlerr.New(sqlerr.Type, it.Expr.Position(), "Can't infer a type of null. Please explicitly cast it to a required type, e.g. CAST(null AS VARCHAR).")
		}
		name, err := names.name(it, c.Type())
		if err != nil {
			return nil, err
		}
		key := !asValue && isKeyRef(e, in.Schema(), ref)
		bound := bounds && isWindowBound(e)
		n.Columns = append(n.Columns, Projection{Name: name, Expr: it.Expr, Eval: c, Key: key, WindowBound: bound})
	}
	n.schema = projectSchema(n.Columns, in.Schema())
	return n, nil
}

// expandItems replaces `*`, `src.*` and `struct->*` items by one item per
// column or field.
func expandItems(items []ast.SelectItem, in *types.Schema, ref *ast.TableRef, bounds bool) ([]ast.SelectItem, error) {
	var out []ast.SelectItem
	for _, it := range items {
		switch {
		case it.Star && it.Source != "" && it.Source != ref.Name && it.Source != ref.Alias:
			return nil, sqlerr.New(sqlerr.Unknown, it.P, "Source %s does not exist in the FROM clause", it.Source)
		case it.Star:
			for i, c := range in.Columns {
				out = append(out, ast.SelectItem{P: it.P, Expr: &ast.ColumnRef{P: it.P, Name: c.Name}})
				if bounds && i == in.NumKeys()-1 {
					// a windowed table's rows: the window bounds follow the key
					out = append(out, ast.SelectItem{P: it.P, Expr: &ast.ColumnRef{P: it.P, Name: "WINDOWSTART"}},
						ast.SelectItem{P: it.P, Expr: &ast.ColumnRef{P: it.P, Name: "WINDOWEND"}})
				}
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
func (p *Planner) expandStructStars(in Node, items []ast.SelectItem, scope expr.Scope) ([]ast.SelectItem, error) {
	var out []ast.SelectItem
	for _, it := range items {
		if !it.StructStar {
			out = append(out, it)
			continue
		}
		c, err := expr.Compile(readFlatMap(in, it.Expr), scope, p.Registry)
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

// isWindowBound reports whether e reads WINDOWSTART or WINDOWEND.
func isWindowBound(e ast.Expr) bool {
	r, ok := e.(*ast.ColumnRef)
	return ok && (r.Name == "WINDOWSTART" || r.Name == "WINDOWEND")
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

// projectSchema lays out the output: key columns in the order of the
// input's key columns (ksqlDB keeps the source or PARTITION BY order
// whatever the SELECT order), then value columns in SELECT order.
func projectSchema(cols []Projection, in *types.Schema) *types.Schema {
	s := &types.Schema{}
	for _, k := range in.Keys() {
		for _, c := range cols {
			if c.Key && c.Expr.(*ast.ColumnRef).Name == k.Name {
				s.Columns = append(s.Columns, types.Column{Name: c.Name, Type: c.Eval.Type(), NS: types.KeyNS})
			}
		}
	}
	for _, c := range cols {
		if c.WindowBound {
			s.Columns = append(s.Columns, types.Column{Name: c.Name, Type: c.Eval.Type(), NS: types.KeyNS})
		}
	}
	for _, c := range cols {
		if !c.Key && !c.WindowBound {
			s.Columns = append(s.Columns, types.Column{Name: c.Name, Type: c.Eval.Type(), NS: types.ValueNS})
		}
	}
	return s
}

// selectOrder lays a transient query's columns out in SELECT order, as
// ksqlDB prints and returns them (only a sink puts its key columns first).
func selectOrder(cols []Projection, s *types.Schema) *types.Schema {
	out := &types.Schema{}
	for _, c := range cols {
		out.Columns = append(out.Columns, s.Columns[s.Find(c.Name)])
	}
	return out
}

// checkPersistent enforces ksqlDB's rules for the projection of a query
// that writes a sink: every key column of its input (the source's, or the
// PARTITION BY expressions) is selected exactly once, at least one value
// column remains, and no output column is named like a system column.
func checkPersistent(n *Project, sink string, windowed bool) error {
	for _, c := range n.Columns {
		if windowed && (c.Name == "WINDOWSTART" || c.Name == "WINDOWEND") {
			if ref, ok := c.Expr.(*ast.ColumnRef); ok && ref.Name == c.Name {
				continue // window bounds may be copied into a windowed result
			}
		}
		if IsPseudoColumn(c.Name) && !c.Key {
			if ref, isRef := c.Expr.(*ast.ColumnRef); isRef && ref.Name == c.Name {
				return sqlerr.New(sqlerr.Semantic, c.Expr.Position(), "Reserved column name in select: `%s`. Please remove or alias the column.", c.Name)
			}
			return sqlerr.New(sqlerr.Semantic, c.Expr.Position(), "`%s` is a reserved column name. You cannot use it as an alias for a column.", c.Name)
		}
	}
	if err := checkKeys(n, sink); err != nil {
		return err
	}
	if len(n.Schema().Values()) == 0 {
		return sqlerr.New(sqlerr.Semantic, ast.Pos{}, "The projection contains no value columns.")
	}
	return nil
}

func checkKeys(n *Project, sink string) error {
	selected := map[string][]string{}
	for _, c := range n.Columns {
		if c.Key {
			ref := c.Expr.(*ast.ColumnRef).Name
			selected[ref] = append(selected[ref], c.Name)
		}
	}
	var missing []string
	for _, k := range n.Input.Schema().Keys() {
		switch names := selected[k.Name]; {
		case len(names) == 0:
			missing = append(missing, k.Name)
		case len(names) > 1:
			return keyTwice(n, k.Name, names)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if agg, ok := aggregateInput(n); ok {
		return missingGroupings(agg, missing, sink)
	}
	if pb, ok := partitionInput(n); ok {
		for i, k := range pb.Schema().Keys() {
			if k.Name == missing[0] {
				e := qualify(pb.Exprs[i], n)
				return sqlerr.New(sqlerr.Semantic, ast.Pos{}, "The query used to build `%s` must include the partitioning expression %s in its projection (eg, SELECT %s...).", sink, e, e)
			}
		}
	}
	noun := "column"
	if len(missing) > 1 {
		noun = "columns"
	}
	return sqlerr.New(sqlerr.Semantic, ast.Pos{}, "The query used to build `%s` must include the key %s %s in its projection (eg, SELECT %s...).",
		sink, noun, grammaticalAnd(missing), strings.Join(missing, ", "))
}

// keyTwice is ksqlDB's error for a key column selected more than once:
// LogicalPlanner's for a GROUP BY key, FinalProjectNode's otherwise.
func keyTwice(n *Project, key string, names []string) error {
	if _, ok := aggregateInput(n); !ok {
		return sqlerr.New(sqlerr.Semantic, ast.Pos{}, "The projection contains a key column (`%s`) more than once, aliased as: %s.", key, strings.Join(names, " and "))
	}
	quoted := make([]string, len(names))
	for i, name := range names {
		quoted[i] = "`" + name + "`"
	}
	return sqlerr.New(sqlerr.Semantic, ast.Pos{}, "The projection contains a key column more than once: %s.\nEach key column must only be in the projection once. If you intended to copy the key into the value, then consider using the AS_VALUE function to indicate which key reference should be copied.", grammaticalAnd(quoted))
}

// missingGroupings is ksqlDB's error for GROUP BY expressions missing
// from a persistent query's projection: all of them, as written.
func missingGroupings(agg *Aggregate, missing []string, sink string) error {
	gone := map[string]bool{}
	for _, m := range missing {
		gone[m] = true
	}
	var exprs []string
	for i, k := range agg.Schema().Keys() {
		if gone[k.Name] {
			exprs = append(exprs, ast.FormatExpr(agg.GroupBy[i]))
		}
	}
	plural := ""
	if len(exprs) > 1 {
		plural = "s"
	}
	return sqlerr.New(sqlerr.Semantic, ast.Pos{}, "Key%s missing from projection (ie, SELECT). \nThe query used to build `%s` must include the grouping expression%s %s in its projection (eg, SELECT %s...).",
		plural, sink, plural, grammaticalAnd(exprs), strings.Join(exprs, ", "))
}

// grammaticalAnd joins names as ksqlDB's GrammaticalJoiner.and: "A",
// "A and B", "A, B and C".
func grammaticalAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// aggregateInput returns the GROUP BY below a projection, if any.
func aggregateInput(n *Project) (*Aggregate, bool) {
	var in Node = n.Input
	for {
		switch x := in.(type) {
		case *Aggregate:
			return x, true
		case *Scan:
			return nil, false
		}
		in = in.Inputs()[0]
	}
}

// partitionInput returns the PARTITION BY below a projection, if any.
func partitionInput(n *Project) (*PartitionBy, bool) {
	var in Node = n.Input
	for {
		switch x := in.(type) {
		case *PartitionBy:
			return x, true
		case *Scan:
			return nil, false
		}
		in = in.Inputs()[0]
	}
}

// qualify renders e with column references qualified by the source name,
// as ksqlDB prints expressions in errors (ABS(INPUT.ID)).
func qualify(e ast.Expr, n Node) string {
	var src string
	in := n
	for in != nil {
		if s, ok := in.(*Scan); ok {
			src = s.Source.Name
			break
		}
		in = in.Inputs()[0]
	}
	refs := expr.ColumnRefs(e)
	var set []*ast.ColumnRef
	for _, r := range refs {
		if r.Source == "" {
			r.Source = src
			set = append(set, r)
		}
	}
	text := ast.FormatExpr(e)
	for _, r := range set {
		r.Source = ""
	}
	return text
}

// sinkSource builds the catalog entry for the target of CREATE … AS SELECT;
// its topic is KAFKA_TOPIC, or prefix and the source's name.
func (p *Planner) sinkSource(s *ast.CreateAsSelect, plan *Plan, prefix string) (*Source, error) {
	w, err := newWithProps(s.Props)
	if err != nil {
		return nil, err
	}
	from := plan.Sources[0]
	sink := &Source{Name: s.Name, Kind: s.Kind, Schema: plan.Root.Schema(), Topic: prefix + s.Name, SQL: s.Text(), Partitions: from.Partitions, Replicas: from.Replicas, QueryCreated: true}
	switch {
	case plan.Window != nil:
		sink.Window = plan.Window
	case from.Window != nil && !plan.Aggregated:
		sink.Window = from.Window
	}
	topicPos := s.P
	if t, pos, ok := w.str("KAFKA_TOPIC"); ok {
		sink.Topic, topicPos = t, pos
	}
	if err := validTopic(sink.Topic, topicPos); err != nil {
		return nil, err
	}
	if err := p.applyCommon(sink, w, from); err != nil {
		return nil, err
	}
	if err := p.applyTimestamp(sink, w); err != nil {
		return nil, err
	}
	explicitKey := w.has("KEY_FORMAT") || w.has("FORMAT")
	if kf, _, ok := w.str("KEY_FORMAT"); ok && sink.Schema.NumKeys() == 0 && !strings.EqualFold(kf, "NONE") {
		return nil, sqlerr.New(sqlerr.Semantic, posOf(w, "KEY_FORMAT"), "Key format specified for stream without key columns.")
	}
	switch {
	case sink.Schema.NumKeys() == 0 && !explicitKey:
		sink.KeyFormat = format.Spec{Name: "NONE"}
	case sink.Schema.NumKeys() > 0 && sink.KeyFormat.Name == "NONE" && !explicitKey:
		sink.KeyFormat = format.Spec{Name: p.Defaults.KeyFormat}
	}
	if err := p.validateSource(sink, s.P); err != nil {
		return nil, err
	}
	return sink, p.checkSchemaIDColumns(sink, s.P)
}
