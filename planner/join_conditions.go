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

// conjuncts splits ON into its AND-ed terms.
func conjuncts(e ast.Expr) []ast.Expr {
	if b, ok := e.(*ast.Binary); ok && b.Op == ast.OpAnd {
		return append(conjuncts(b.L), conjuncts(b.R)...)
	}
	return []ast.Expr{e}
}

// multiCondition plans an ON conjunction (ksqlDB rejects them all): its
// equalities of one expression per side that can key the join form a
// composite key, the rest is a residual filter of the matches. A table
// side must be joined on exactly its primary key columns; a stream side
// not joined on exactly its key columns is re-keyed by all of them.
func (p *Planner) multiCondition(j *ast.Join, n *Join, s *joinScope, conj []ast.Expr) error {
	eqs, rest, firstCross := n.splitConditions(conj, s)
	n.On = qualifyJoin(j.On, s)
	switch {
	case len(eqs) == 0 && firstCross != nil:
		_, err := p.singleCondition(j, firstCross, n.Shape, s) // its message says why it cannot key the join
		if err == nil {
			err = sqlerr.New(sqlerr.Semantic, j.On.Position(), "Invalid join condition: no equality can key the join. Got %s.", ast.FormatExpr(n.On))
		}
		return err
	case len(eqs) == 0:
		return sqlerr.New(sqlerr.Semantic, j.On.Position(), "Invalid join condition: a join needs an equality of one expression of each side. Got %s.", ast.FormatExpr(n.On))
	case len(eqs) == 1:
		eq, err := p.singleCondition(j, eqs[0], n.Shape, s)
		if err != nil {
			return err
		}
		n.Equalities = []*ast.Binary{eq}
	default:
		if err := p.compositeKey(j, n, s, eqs); err != nil {
			return err
		}
	}
	return n.setResidual(j, rest)
}

// splitConditions sorts ON's conjuncts into the key equalities and the
// residual (a repeated equality counts once); firstCross is the first
// equality of the two sides, keying or not.
func (n *Join) splitConditions(conj []ast.Expr, s *joinScope) (eqs []*ast.Binary, rest []ast.Expr, firstCross ast.Expr) {
	for _, c := range conj {
		eq, ok := s.crossEquality(c)
		if ok && firstCross == nil {
			firstCross = c
		}
		if ok && n.keyEquality(eq, eqs, s) {
			eqs = append(eqs, eq)
			continue
		}
		if !ok || !slices.ContainsFunc(eqs, func(e *ast.Binary) bool { return sameEquality(e, eq) }) {
			rest = append(rest, qualifyJoin(c, s))
		}
	}
	return eqs, rest, firstCross
}

// crossEquality returns c as (left operand, right operand) when it is an
// equality of one expression of each side (qualified).
func (s *joinScope) crossEquality(c ast.Expr) (*ast.Binary, bool) {
	b, ok := c.(*ast.Binary)
	if !ok || b.Op != ast.OpEQ {
		return nil, false
	}
	l, r := qualifyJoin(b.L, s), qualifyJoin(b.R, s)
	whole := &ast.Binary{P: b.P, Op: ast.OpEQ, L: l, R: r}
	ls, err := exprSide(b.L, l, whole, s)
	if err != nil {
		return nil, false
	}
	rs, err := exprSide(b.R, r, whole, s)
	if err != nil || ls == rs {
		return nil, false
	}
	if ls == 1 {
		l, r = r, l
	}
	return &ast.Binary{P: b.P, Op: ast.OpEQ, L: l, R: r}, true
}

// keyEquality reports whether eq can be one column of the join key: a
// stream–stream join keys on any equality, a join with a table on those
// whose right operand is one of the right table's key columns (each
// once); the others filter the matches.
func (n *Join) keyEquality(eq *ast.Binary, eqs []*ast.Binary, s *joinScope) bool {
	if slices.ContainsFunc(eqs, func(e *ast.Binary) bool { return sameEquality(e, eq) }) {
		return false
	}
	if n.Shape == StreamStream {
		return true
	}
	i, ok := s.keyColumnOf(eq.R, s.sides[1])
	return ok && !slices.ContainsFunc(eqs, func(e *ast.Binary) bool {
		j, _ := s.keyColumnOf(e.R, s.sides[1])
		return j == i
	})
}

func sameEquality(a, b *ast.Binary) bool {
	return ast.FormatExpr(a) == ast.FormatExpr(b)
}

// keyColumnOf reports whether e is one of a (non-nested) side's key
// columns and which.
func (s *joinScope) keyColumnOf(e ast.Expr, in *JoinInput) (int, bool) {
	c, ok := e.(*ast.ColumnRef)
	if !ok || in.Nested() {
		return -1, false
	}
	i := in.Source.Schema.Find(c.Name)
	return i, i >= 0 && in.Source.Schema.Columns[i].NS == types.KeyNS
}

// compositeKey makes eqs the join's composite key: each side keyed by
// exactly its key columns keeps its key, a stream side is otherwise
// re-keyed by its operands, a table side fails.
func (p *Planner) compositeKey(j *ast.Join, n *Join, s *joinScope, eqs []*ast.Binary) error {
	var got []string
	for _, eq := range eqs {
		got = append(got, ast.FormatExpr(eq))
	}
	for i, in := range s.sides {
		ops := make([]ast.Expr, len(eqs))
		for k, eq := range eqs {
			ops[k] = [2]ast.Expr{eq.L, eq.R}[i]
		}
		if err := p.compositeSide(j, n, s, in, i, ops, got); err != nil {
			return err
		}
	}
	for _, eq := range eqs {
		if err := p.checkJoinTypes(s, eq.L, eq.R, 0, 1, eq.P); err != nil {
			return err
		}
	}
	n.Equalities = eqs
	return p.copartitionKeys(j, n, s, got)
}

// copartitionKeys makes sure two sides that keep their composite keys
// write them as the same bytes (same column names, order and key
// format), so that equal keys are in the same partition: otherwise a
// stream side is re-keyed (into the other side's layout), and two tables
// fail.
func (p *Planner) copartitionKeys(j *ast.Join, n *Join, s *joinScope, got []string) error {
	l, r := &n.Left, &n.Right
	if l.Rekeyed() || r.Rekeyed() || sameKeyLayout(l, r) {
		return nil
	}
	side, in := 1, r
	if r.Source.Kind == ast.Table {
		side, in = 0, l
	}
	if in.Source.Kind == ast.Table {
		return sqlerr.New(sqlerr.Semantic, j.On.Position(), "Invalid join condition: table-table joins on several columns require both tables to have the same key columns, in the same order and key format. Got %s.", joinAnd(got))
	}
	in.Keys = nil
	for _, eq := range n.Equalities {
		if err := p.rekey(s, in, [2]ast.Expr{eq.L, eq.R}[side]); err != nil {
			return err
		}
	}
	return nil
}

// sameKeyLayout reports whether both sides' key columns, in their schema
// order, hold the same join key columns under the same names and format.
func sameKeyLayout(l, r *JoinInput) bool {
	if l.Source.KeyFormat.Name != r.Source.KeyFormat.Name {
		return false
	}
	lk, rk := keyLayout(l), keyLayout(r)
	return slices.Equal(lk, rk)
}

// keyLayout lists a side's key columns in schema order as "name/join
// key index".
func keyLayout(in *JoinInput) []string {
	var out []string
	for i, c := range in.Source.Schema.Columns {
		if c.NS == types.KeyNS {
			out = append(out, c.Name+"/"+strconv.Itoa(slices.Index(in.Keys, i)))
		}
	}
	return out
}

// compositeSide sets one side's join columns for a composite key.
func (p *Planner) compositeSide(j *ast.Join, n *Join, s *joinScope, in *JoinInput, side int, ops []ast.Expr, got []string) error {
	if keys, ok := s.exactKeys(ops, in); ok {
		in.Keys = keys
		return nil
	}
	if in.Source.Kind == ast.Table {
		what := "stream-table joins require to join on the table's primary key"
		if n.Shape == TableTable {
			what = "table-table joins on several columns require to join on the primary keys of both tables"
		}
		return sqlerr.New(sqlerr.Semantic, j.On.Position(), "Invalid join condition: %s. Got %s.", what, joinAnd(got))
	}
	for _, op := range ops {
		if err := p.rekey(s, in, op); err != nil {
			return err
		}
	}
	return nil
}

func joinAnd(parts []string) string { return strings.Join(parts, " AND ") }

// exactKeys returns the indexes of ops when they are exactly the side's
// key columns, each once.
func (s *joinScope) exactKeys(ops []ast.Expr, in *JoinInput) ([]int, bool) {
	if in.Nested() || in.Source.Schema.NumKeys() != len(ops) {
		return nil, false
	}
	var keys []int
	for _, op := range ops {
		i, ok := s.keyColumnOf(op, in)
		if !ok || slices.Contains(keys, i) {
			return nil, false
		}
		keys = append(keys, i)
	}
	return keys, true
}

// setResidual keeps the conjuncts that are no key equality as the
// join's residual filter. A FULL table–table join has none: a pair it
// rejects would need two result rows of one key; a foreign-key join
// none either (its matches are made on the right table's tasks).
func (n *Join) setResidual(j *ast.Join, rest []ast.Expr) error {
	if len(rest) == 0 {
		return nil
	}
	e := rest[0]
	for _, r := range rest[1:] {
		e = &ast.Binary{P: r.Position(), Op: ast.OpAnd, L: e, R: r}
	}
	switch {
	case n.Shape == TableTable && n.Type == ast.FullJoin:
		return sqlerr.New(sqlerr.Unsupported, e.Position(), "Invalid join condition: a FULL OUTER table-table join takes only equalities of the primary keys, a residual condition would need two result rows of one key. Got %s.", ast.FormatExpr(e))
	case n.Foreign():
		return sqlerr.New(sqlerr.Unsupported, e.Position(), "Invalid join condition: a foreign-key table-table join takes only its key equality. Got %s.", ast.FormatExpr(e))
	}
	n.ResidualExpr = e
	return nil
}

// compileResidual compiles the residual over the join's output schema
// (once its layout is known).
func (p *Planner) compileResidual(n *Join, s *joinScope) error {
	if n.ResidualExpr == nil {
		return nil
	}
	flat, err := s.rewrite(n.ResidualExpr)
	if err != nil {
		return err
	}
	c, err := expr.Compile(flat, expr.SchemaScope(n.schema, nil, false), p.Registry)
	if err != nil {
		return err
	}
	if !c.Type().Equal(types.BooleanType) {
		return sqlerr.New(sqlerr.Type, n.ResidualExpr.Position(), "Invalid join condition: %s is not a boolean condition.", ast.FormatExpr(n.ResidualExpr))
	}
	n.Residual = c
	return nil
}

// keyNames names the join key's columns given the first one's (key):
// a composite key takes the other columns' names from the side the first
// came from (else the other side; else synthetic, as a FULL join's).
func (n *Join) keyNames(key string) []string {
	if n.KeyWidth() == 1 {
		return []string{key}
	}
	sides := []*JoinInput{&n.Left, &n.Right}
	if n.Right.keyName() == key {
		sides[0], sides[1] = sides[1], sides[0]
	}
	out := []string{key}
	for i := 1; i < n.KeyWidth(); i++ {
		name := ""
		if n.Type != ast.FullJoin {
			if name = sides[0].keyNameAt(i); name == "" {
				name = sides[1].keyNameAt(i)
			}
		}
		if name == "" {
			name = n.syntheticKeyAfter(out)
		}
		out = append(out, name)
	}
	return out
}

// syntheticKeyAfter is the next ROWKEY_n name not taken by a source or by
// the key columns named so far.
func (n *Join) syntheticKeyAfter(taken []string) string {
	for i := 1; ; i++ {
		name := "ROWKEY_" + strconv.Itoa(i)
		if !slices.Contains(taken, name) && !n.sourceHas(name) {
			return name
		}
	}
}

func (n *Join) sourceHas(name string) bool {
	for _, lf := range n.leaves {
		if lf.src.Schema.Find(name) >= 0 {
			return true
		}
	}
	return false
}

// checkCompositeKey requires a persistent query over a composite-key join
// to select every key column (as ksqlDB requires of multi-column keys).
func (n *Join) checkCompositeKey(cols []Projection, sink string) error {
	if n.KeyWidth() == 1 {
		return nil
	}
	selected := map[string]bool{}
	for _, c := range cols {
		if r, ok := c.Expr.(*ast.ColumnRef); ok && c.Key {
			selected[r.Name] = true
		}
	}
	var names []string
	missing := false
	for _, c := range n.schema.Columns[:n.KeyWidth()] {
		names = append(names, c.Name)
		missing = missing || !selected[c.Name]
	}
	if !missing {
		return nil
	}
	return sqlerr.New(sqlerr.Semantic, ast.Pos{}, "The query used to build `%s` must include the join key columns %s in its projection (eg, SELECT %s...).",
		sink, strings.Join(names, " and "), strings.Join(names, ", "))

}
