package planner

import (
	"slices"
	"strconv"
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// planJoin plans `FROM a [x] <type> JOIN b [y] ON …`: a Join node over the
// two scans, then WHERE and the projection over the join's flat schema.
func (p *Planner) planJoin(q *ast.Query, kind QueryKind) (*Plan, error) {
	j := q.From.(*ast.Join)
	if kind == Pull {
		return nil, sqlerr.New(sqlerr.Unsupported, j.P, "Pull queries don't support JOIN clauses.")
	}
	n, scope, err := p.joinNode(j, q.Items, queryRecordRefs(q), "")
	if err != nil {
		return nil, err
	}
	if err := checkNestedGlobal(n); err != nil {
		return nil, err
	}
	items, err := scope.rewriteItems(q.Items)
	if err != nil {
		return nil, err
	}
	n.layout(joinKeyName(items, n))
	if err := p.compileResidual(n, scope); err != nil {
		return nil, err
	}
	plan := &Plan{Kind: kind, Sources: n.Sources(), Limit: q.Limit, Join: n}
	return p.planAboveJoin(plan, q, n, items, scope)
}

// joinNode plans one join step (its nested left step first) up to its
// layout, which depends on the key the SELECT list picks.
func (p *Planner) joinNode(j *ast.Join, items []ast.SelectItem, refs recordRefs, prefix string) (*Join, *joinScope, error) {
	l, r, err := p.joinInputs(j, items, refs, prefix)
	if err != nil {
		return nil, nil, err
	}
	if err := checkAsOfSources(j, l, r, prefix); err != nil {
		return nil, nil, err
	}
	if err := checkGlobalJoin(j, l, r); err != nil {
		return nil, nil, err
	}
	shape, err := joinShape(j, l, r)
	if err != nil {
		return nil, nil, err
	}
	if err := checkJoinSources(j, l, r); err != nil {
		return nil, nil, err
	}
	n := &Join{Type: j.Type, Shape: shape, Left: l, Right: r, Within: j.Within, Prefix: prefix}
	scope := newJoinScope(&n.Left, &n.Right)
	if n.AsOf, err = asOfJoin(j, l, r, scope); err != nil {
		return nil, nil, err
	}
	if err := p.joinCondition(j, n, scope); err != nil {
		return nil, nil, err
	}
	if err := p.checkWindowedJoin(j, n); err != nil {
		return nil, nil, err
	}
	if err := p.alignKeyFormats(n, scope); err != nil {
		return nil, nil, err
	}

	n.leaves = scope.leaves
	return n, scope, nil
}

// planAboveJoin adds WHERE, PARTITION BY, GROUP BY and the projection
// above the join.
func (p *Planner) planAboveJoin(plan *Plan, q *ast.Query, n *Join, items []ast.SelectItem, js *joinScope) (*Plan, error) {
	var node Node = n
	scope := expr.SchemaScope(n.schema, nil, false)
	if q.Where != nil {
		where, err := js.rewrite(q.Where)
		if err != nil {
			return nil, err
		}
		if node, err = p.filter(node, where, scope, "WHERE"); err != nil {
			return nil, err
		}
	}
	star := visibleNames(n)
	if len(q.PartitionBy) > 0 {
		star = partitionedStarNames(n)
	}
	items = nameItems(expandStar(items, star), n.schema)
	node, items, scope, err := p.regroupJoin(plan, q, node, items, js, scope)
	if err != nil {
		return nil, err
	}
	proj, err := p.project(node, items, scope, &Source{Schema: n.schema}, &ast.TableRef{}, false)
	if err != nil {
		return nil, err
	}
	if plan.Kind != Persistent {
		proj.schema = selectOrder(proj.Columns, proj.schema)
	}
	plan.Root = proj
	return plan, nil
}

// expandStar replaces an unqualified `*` by the named columns, in order.
func expandStar(items []ast.SelectItem, names []string) []ast.SelectItem {
	var out []ast.SelectItem
	for _, it := range items {
		if !it.Star || it.Source != "" {
			out = append(out, it)
			continue
		}
		for _, name := range names {
			out = append(out, ast.SelectItem{P: it.P, Expr: &ast.ColumnRef{P: it.P, Name: name}})
		}
	}
	return out
}

// visibleNames are what `*` selects from a join: its visible columns (not
// the sources' row times).
func visibleNames(n *Join) []string {
	var names []string
	for _, c := range n.Visible() {
		names = append(names, c.Name)
	}
	return names
}

// joinKeyName picks the result's key column as ksqlDB does: a FULL OUTER
// join gets the synthetic ROWKEY (ROWKEY_1, … past source columns);
// otherwise the left join column (qualified) if the projection selects
// it, else the right one if selected, the left one by default.
func joinKeyName(items []ast.SelectItem, n *Join) string {
	selected, star := map[string]bool{}, false
	for _, it := range items {
		star = star || it.Star
		if c, ok := it.Expr.(*ast.ColumnRef); ok {
			selected[c.Name] = true
		}
	}
	return pickJoinKey(selected, star, n)
}

// pickJoinKey picks the key among the join columns the SELECT list
// names (selected: their output names).
func pickJoinKey(selected map[string]bool, star bool, n *Join) string {
	cands := n.keyCandidates()
	if n.Type == ast.FullJoin || len(cands) == 0 {
		return syntheticKey(n)
	}
	if star {
		return cands[0]
	}
	for _, c := range cands {
		if selected[c] {
			return c
		}
	}
	return cands[0]
}

// keyCandidates are the qualified names of the join columns (a side
// joined on an expression has none); a nested step's own join columns
// come first: they hold the same value (ksqlDB's equivalence set).
func (n *Join) keyCandidates() []string {
	var out []string
	if inner, ok := n.Left.Node.(*Join); ok && !inner.Synthetic() && (n.Left.KeyIndex() == 0 || inner.joinsOn(n.Left.rekeyExpr())) {
		out = append(out, inner.keyCandidates()...)
	}
	sides := []*JoinInput{&n.Left, &n.Right}
	if n.Foreign() || n.Global() {
		sides = sides[:1] // the result is keyed by the left's (stream's) key
	}
	for _, in := range sides {
		if k := in.keyName(); k != "" && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// joinsOn reports whether e (in output names) is one of the join's own
// ON expressions: a later step joined on it joins on this step's key
// too (ksqlDB merges the two equivalence sets).
func (n *Join) joinsOn(e ast.Expr) bool {
	if e == nil || len(n.Equalities) != 1 {
		return false // one column of a composite key is not the key
	}
	b := n.Equalities[0]
	want := ast.FormatExpr(e)
	return ast.FormatExpr(flatten(b.L)) == want || ast.FormatExpr(flatten(b.R)) == want
}

// flatten names qualified references by their output names (X_COL).
func flatten(e ast.Expr) ast.Expr {
	return ast.Rewrite(e, func(x ast.Expr) (ast.Expr, bool) {
		if r, ok := x.(*ast.ColumnRef); ok && r.Source != "" {
			return &ast.ColumnRef{P: r.P, Name: qualified(r.Source, r.Name)}, true
		}
		return nil, false
	})
}

// Synthetic reports whether the join's key is synthesised (ROWKEY).
func (n *Join) Synthetic() bool {
	if n.Keyless() {
		return false
	}
	return !slices.Contains(n.keyCandidates(), n.schema.Columns[0].Name)
}

// KeyMissingError is ksqlDB's error for a persistent join query whose
// projection lacks the join key.
func (n *Join) KeyMissingError(sink string) error {
	k := n.schema.Columns[0].Name
	if n.Synthetic() {
		return sqlerr.New(sqlerr.Semantic, ast.Pos{}, "Key missing from projection (ie, SELECT). See https://cnfl.io/2LV7ouS.\nThe query used to build `%s` must include the join expression %s in its projection (eg, SELECT %s...).\n%s was added as a synthetic key column because the join criteria did not match any source column. This expression must be included in the projection and may be aliased.", sink, k, k, k)
	}
	var refs []string
	sides := []*JoinInput{&n.Left, &n.Right}
	if n.Global() {
		sides = sides[:1] // the result keeps the stream's key
	}
	for _, in := range sides {
		if r := in.keyRef(); r != "" {
			refs = append(refs, r)
		}
	}
	if len(refs) == 1 {
		return sqlerr.New(sqlerr.Semantic, ast.Pos{}, "The query used to build `%s` must include the join expression %s in its projection (eg, SELECT %s...).", sink, refs[0], refs[0])
	}
	return sqlerr.New(sqlerr.Semantic, ast.Pos{}, "The query used to build `%s` must include the join expressions %s in its projection (eg, SELECT %s...).", sink, strings.Join(refs, " or "), refs[0])
}

// syntheticKey is ROWKEY, or ROWKEY_n when a source has such a column (a
// nested step's own synthetic key does not count: it is not carried).
func syntheticKey(n *Join) string {
	name := "ROWKEY"
	taken := func(name string) bool {
		for _, lf := range n.leaves {
			if lf.src.Schema.Find(name) >= 0 {
				return true
			}
		}
		return false
	}
	for i := 1; taken(name); i++ {
		name = "ROWKEY_" + strconv.Itoa(i)
	}
	return name
}

// layout builds the output schema: the key, then each side's columns
// qualified (the key column itself only once).
func (n *Join) layout(key string) {
	names := n.keyNames(key)
	n.schema = &types.Schema{}
	n.Columns = nil
	for i, kt := range n.KeyTypes() {
		n.schema.Columns = append(n.schema.Columns, types.Column{Name: names[i], Type: kt, NS: types.KeyNS})
		n.Columns = append(n.Columns, JoinColumn{Side: JoinKey, Index: i})
	}
	n.hidden = map[string]bool{}
	n.layoutForeignKeys()
	for _, side := range []struct {
		in   JoinInput
		side JoinSide
	}{{n.Left, JoinLeft}, {n.Right, JoinRight}} {
		for i, c := range side.in.Source.Schema.Columns {
			n.layoutColumn(side.in, side.side, i, c, names)
			if i == side.in.Source.Schema.NumKeys()-1 {
				n.layoutBounds(side.in, side.side)
			}
		}
	}
	n.layoutRowTimes()
}

// layoutColumn adds a side's column i as a value column (the join key's
// columns are there once).
func (n *Join) layoutColumn(in JoinInput, side JoinSide, i int, c types.Column, keys []string) {
	name := qualified(in.Alias, c.Name)
	if inner, ok := in.Node.(*Join); ok {
		name = c.Name
		if i == 0 && inner.Synthetic() {
			return // a nested step's synthetic key is not carried
		}
	}
	if slices.Contains(keys, name) || (n.Foreign() && side == JoinLeft && c.NS == types.KeyNS) {
		return
	}
	n.schema.Columns = append(n.schema.Columns, types.Column{Name: name, Type: c.Type, NS: types.ValueNS})
	n.Columns = append(n.Columns, JoinColumn{Side: side, Index: i})
	if isRecordColumn(c) {
		n.hidden[name] = true // read by x.ROWPARTITION, not selected by *
	}
}

// layoutBounds adds a windowed source side's window bounds after its key
// columns, ALIAS_WINDOWSTART and ALIAS_WINDOWEND (as ksqlDB's join
// schema has them): the operators pass them after the side's row time
// (withTime).
func (n *Join) layoutBounds(in JoinInput, side JoinSide) {
	if in.Nested() || !in.Source.Windowed() {
		return
	}
	for k, b := range []string{"WINDOWSTART", "WINDOWEND"} {
		n.schema.Columns = append(n.schema.Columns, types.Column{Name: qualified(in.Alias, b), Type: types.BigintType, NS: types.ValueNS})
		n.Columns = append(n.Columns, JoinColumn{Side: side, Index: len(in.Source.Schema.Columns) + 1 + k})
	}
}

// layoutForeignKeys adds the left's other primary key columns to a
// foreign-key join's key (its result is keyed by the whole left key).
func (n *Join) layoutForeignKeys() {
	if !n.Foreign() {
		return
	}
	for i, c := range n.Left.Source.Schema.Columns {
		if c.NS == types.KeyNS && i != n.Left.KeyIndex() {
			n.schema.Columns = append(n.schema.Columns, types.Column{Name: qualified(n.Left.Alias, c.Name), Type: c.Type, NS: types.KeyNS})
			n.Columns = append(n.Columns, JoinColumn{Side: JoinLeft, Index: i})
		}
	}
}

// layoutRowTimes appends each source's row time as a hidden column: a
// source side's is one past its columns (the operators pass each side's
// values followed by its row's time), a nested side's is already in its
// schema.
func (n *Join) layoutRowTimes() {
	for _, side := range []struct {
		in   JoinInput
		side JoinSide
	}{{n.Left, JoinLeft}, {n.Right, JoinRight}} {
		if inner, ok := side.in.Node.(*Join); ok {
			for name := range inner.hidden {
				n.hidden[name] = true
			}
			continue
		}
		name := qualified(side.in.Alias, rowTimeColumn)
		n.schema.Columns = append(n.schema.Columns, types.Column{Name: name, Type: types.BigintType, NS: types.ValueNS})
		n.Columns = append(n.Columns, JoinColumn{Side: side.side, Index: len(side.in.Source.Schema.Columns)})
		n.hidden[name] = true
	}
}

// checkPersistentJoin requires a persistent join query to select the join
// key (ksqlDB's message names the join expressions).
func checkPersistentJoin(plan *Plan, sink string) error {
	if plan.Join == nil || plan.Aggregated || plan.partitioned() {
		return nil // the result is keyed by GROUP BY or PARTITION BY
	}
	if plan.Join.Foreign() {
		return plan.Join.checkForeignKeys(plan.project().Columns)
	}
	if plan.Join.Keyless() {
		return nil // a keyless stream's global join: the result has no key
	}
	if err := plan.Join.checkCompositeKey(plan.project().Columns, sink); err != nil {
		return err
	}

	for _, c := range plan.project().Columns {
		if c.Key {
			return nil
		}
	}
	return plan.Join.KeyMissingError(sink)
}

// checkForeignKeys requires a foreign-key join's projection to select
// every left primary key column (ksqlDB's message).
func (n *Join) checkForeignKeys(cols []Projection) error {
	selected := map[string]bool{}
	for _, c := range cols {
		if r, ok := c.Expr.(*ast.ColumnRef); ok && c.Key {
			selected[r.Name] = true
		}
	}
	var missing []string
	for _, c := range n.Left.Source.Schema.Columns {
		if c.NS == types.KeyNS && !selected[qualified(n.Left.Alias, c.Name)] {
			missing = append(missing, "`"+c.Name+"`")
		}
	}
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return sqlerr.New(sqlerr.Semantic, ast.Pos{}, "Primary key column missing in projection. For foreign-key table-table joins, the projection must include all primary key columns from the left input table (`%s`). Missing column: %s.", n.Left.Source.Name, missing[0])
	}
	return sqlerr.New(sqlerr.Semantic, ast.Pos{}, "Primary key columns missing in projection. For foreign-key table-table joins, the projection must include all primary key columns from the left input table (`%s`). Missing columns: %s.", n.Left.Source.Name, strings.Join(missing, ", "))
}

// KeyTypes are the types of the join key's columns, one per equality
// (both sides' join expressions have them; a foreign-key join's is the
// left primary key).
func (n *Join) KeyTypes() []*types.Type {
	if n.Global() && n.Keyless() {
		return nil
	}
	if n.Foreign() || n.Global() {
		return []*types.Type{n.Left.Source.Schema.Columns[n.Left.KeyIndex()].Type}
	}
	out := make([]*types.Type, len(n.Equalities))
	for i := range out {
		if n.Right.Rekeyed() {
			out[i] = n.Right.Rekey[i].Type()
		} else {
			out[i] = n.Right.Source.Schema.Columns[n.Right.Keys[i]].Type
		}
	}
	return out
}

// KeyWidth is the number of the join key's columns (several for ON
// a.x = b.x AND a.y = b.y).
func (n *Join) KeyWidth() int {
	if n.Foreign() || n.Global() {
		return len(n.KeyTypes())
	}
	return len(n.Equalities)
}

// partitioned reports whether the plan re-keys its rows (PARTITION BY).
func (p *Plan) partitioned() bool {
	for n := p.Root; len(n.Inputs()) == 1; n = n.Inputs()[0] {
		if _, ok := n.(*PartitionBy); ok {
			return true
		}
	}
	return false
}
