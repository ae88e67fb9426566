package planner

import (
	"slices"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// joinCondition checks the ON clause and sets each side's join columns
// and the join's On, Equalities and ResidualExpr. ON is one equality of
// one expression per side (ksqlDB's rules and messages) or a conjunction
// (multiCondition): equalities on a composite key and residual filters.
func (p *Planner) joinCondition(j *ast.Join, n *Join, s *joinScope) error {
	conj := conjuncts(j.On)
	if len(conj) == 1 {
		eq, err := p.singleCondition(j, j.On, n.Shape, s)
		if err != nil {
			return err
		}
		n.On, n.Equalities = qualifyJoin(j.On, s), []*ast.Binary{eq}
		return nil
	}
	return p.multiCondition(j, n, s, conj)
}

// singleCondition checks one equality `on` as the whole join condition:
// each side must be joined on its key column (the table side's primary
// key always, a stream side is otherwise re-keyed). It returns the
// equality as (left operand, right operand), qualified.
func (p *Planner) singleCondition(j *ast.Join, on ast.Expr, shape JoinShape, s *joinScope) (*ast.Binary, error) {
	b, err := equality(on)
	if err != nil {
		return nil, err
	}
	l, r := qualifyJoin(b.L, s), qualifyJoin(b.R, s)
	whole := &ast.Binary{P: b.P, Op: ast.OpEQ, L: l, R: r}
	ls, err := exprSide(b.L, l, whole, s)
	if err != nil {
		return nil, err
	}
	rs, err := exprSide(b.R, r, whole, s)
	if err != nil {
		return nil, err
	}
	if ls == rs && ls == 0 && s.sides[0].Nested() {
		return nil, sqlerr.New(sqlerr.Semantic, on.Position(), "A join criteria is expected to reference the source (`%s`) in the FROM clause, instead the right source references `%s` and the left source references `%s`",
			s.sides[1].Alias, s.leafAlias(b.R), s.leafAlias(b.L))
	}
	if ls == rs {
		return nil, sqlerr.New(sqlerr.Semantic, on.Position(), "Each side of the join must reference exactly one source and not the same source. Left side references `%s` and right references `%s`",
			s.sides[ls].Alias, s.sides[rs].Alias)
	}
	got := ast.FormatExpr(l) + " = " + ast.FormatExpr(r)
	le, re := l, r
	if ls == 1 {
		le, re = r, l
	}
	if err := p.checkJoinKeys(j, shape, s, le, re, got); err != nil {
		return nil, err
	}
	if err := p.checkJoinTypes(s, l, r, ls, rs, on.Position()); err != nil {
		return nil, err
	}
	if err := p.rekey(s, s.sides[0], le); err != nil {
		return nil, err
	}
	if err := p.rekey(s, s.sides[1], re); err != nil {
		return nil, err
	}
	return &ast.Binary{P: b.P, Op: ast.OpEQ, L: le, R: re}, nil
}

// equality returns ON as an `=` comparison or ksqlDB's error for it.
func equality(on ast.Expr) (*ast.Binary, error) {
	b, ok := on.(*ast.Binary)
	switch {
	case ok && b.Op == ast.OpEQ:
		return b, nil
	case ok && b.Op >= ast.OpNE && b.Op <= ast.OpGE:
		return nil, sqlerr.New(sqlerr.Unsupported, on.Position(), "Only equality join criteria is supported.")
	}
	return nil, sqlerr.New(sqlerr.Unsupported, on.Position(), "Unsupported join expression: %s", ast.FormatExpr(on))
}

// qualifyJoin gives every unqualified reference its side's alias (for
// messages); unresolvable references are left as written.
func qualifyJoin(e ast.Expr, s *joinScope) ast.Expr {
	return ast.Rewrite(e, func(x ast.Expr) (ast.Expr, bool) {
		r, ok := x.(*ast.ColumnRef)
		if !ok {
			return nil, false
		}
		lf, err := s.leaf(r)
		if err != nil || lf == nil {
			return r, true
		}
		return &ast.ColumnRef{P: r.P, Source: lf.alias, Name: r.Name}, true
	})
}

// exprSide returns the one side an ON operand references.
func exprSide(orig, q, whole ast.Expr, s *joinScope) (int, error) {
	side := -1
	for _, r := range expr.ColumnRefs(orig) {
		i, err := s.side(r)
		if err != nil {
			if r.Source != "" && s.knows(r.Source) {
				return -1, sqlerr.New(sqlerr.Unknown, r.P, "JOIN ON column '%s.%s' cannot be resolved.", r.Source, r.Name)
			}
			return -1, err
		}
		if i < 0 {
			return -1, sqlerr.New(sqlerr.Unknown, r.P, "JOIN ON column '%s' cannot be resolved.", r.Name)
		}
		if side >= 0 && side != i {
			side = -2
		} else if side != -2 {
			side = i
		}
	}
	if side < 0 {
		return -1, sqlerr.New(sqlerr.Semantic, orig.Position(), "Invalid comparison expression '%s' in join '%s'. Each side of the join comparision must contain references from exactly one source.",
			ast.FormatExpr(q), ast.FormatExpr(whole))
	}
	return side, nil
}

// checkJoinKeys requires each side to be joined on its key column and
// records the columns. le is the left side's operand, re the right's.
func (p *Planner) checkJoinKeys(j *ast.Join, shape JoinShape, s *joinScope, le, re ast.Expr, got string) error {
	r, l := s.sides[1], s.sides[0]
	rk, ok := s.keyColumn(re, r)
	if !ok && shape != StreamStream {
		what := "stream-table joins require to join on the table's primary key"
		if shape == TableTable {
			what = "table-table joins require to join on the primary key of the right input table"
		}
		return sqlerr.New(sqlerr.Semantic, j.On.Position(), "Invalid join condition: %s. Got %s.", what, got)
	}
	if r.Source.Global {
		r.Keys = []int{rk}
		return p.globalLookup(s, l, le)
	}
	lk, ok := s.keyColumn(le, l)
	if !ok && shape == TableTable {
		r.Keys = []int{rk}
		return p.foreignKey(j, s, l, le, got)
	}
	l.Keys, r.Keys = keyList(lk), keyList(rk)
	return nil
}

// foreignKey makes a table–table join whose left side is joined on a
// non-key expression a foreign-key join (INNER and LEFT only, as
// ksqlDB): the left keeps its primary key, the result's key, and le is
// compiled to compute the right table's key from a left row.
func (p *Planner) foreignKey(j *ast.Join, s *joinScope, l *JoinInput, le ast.Expr, got string) error {
	switch j.Type {
	case ast.RightJoin:
		return sqlerr.New(sqlerr.Unsupported, j.On.Position(), "RIGHT OUTER JOIN on a foreign key is not supported")
	case ast.FullJoin:
		return sqlerr.New(sqlerr.Unsupported, j.On.Position(), "Invalid join type: full-outer join not supported for foreign-key table-table join. Got %s.", got)
	}
	if l.Nested() {
		return sqlerr.New(sqlerr.Unsupported, j.On.Position(), "Invalid join condition: foreign-key table-table joins are not supported as part of n-way joins. Got %s.", got)
	}
	l.Keys = []int{slices.IndexFunc(l.Source.Schema.Columns, func(c types.Column) bool { return c.NS == types.KeyNS })}
	c, e, err := p.compileSide(s, l, le)
	if err != nil {
		return err
	}
	l.ForeignKey, l.ForeignKeyExpr = c, e
	return nil
}

// rekey compiles the stream side's join expression when it is not the
// side's key: the side is re-keyed through a repartition topic.
func (p *Planner) rekey(s *joinScope, l *JoinInput, le ast.Expr) error {
	if len(l.Keys) > 0 || l.Lookup != nil {
		return nil
	}
	c, e, err := p.compileSide(s, l, le)
	if err != nil {
		return err
	}
	l.Rekey, l.RekeyExprs = append(l.Rekey, c), append(l.RekeyExprs, e)
	return nil
}

// keyList is the Keys of a side joined on key column i (-1: none).
func keyList(i int) []int {
	if i < 0 {
		return nil
	}
	return []int{i}
}

// compileSide compiles an expression of one side over that side's rows:
// a source's columns by their names, a nested join's by its flat names.
// It returns the expression as compiled (unqualified).
func (p *Planner) compileSide(s *joinScope, in *JoinInput, e ast.Expr) (*expr.Compiled, ast.Expr, error) {
	if in.Nested() {
		flat, err := s.rewrite(e)
		if err != nil {
			return nil, nil, err
		}
		c, err := expr.Compile(flat, expr.SchemaScope(in.Source.Schema, nil, false), p.Registry)
		return c, flat, err
	}
	scope := expr.SchemaScope(in.Source.Schema, []string{in.Alias, in.Source.Name}, false)
	c, err := expr.Compile(e, scope, p.Registry)
	return c, unqualify(e), err
}

// unqualify drops the qualifiers of a side's expression.
func unqualify(e ast.Expr) ast.Expr {
	return ast.Rewrite(e, func(x ast.Expr) (ast.Expr, bool) {
		if r, ok := x.(*ast.ColumnRef); ok {
			return &ast.ColumnRef{P: r.P, Name: r.Name}, true
		}
		return nil, false
	})
}

// keyColumn reports whether e is the side's (single) key column; of a
// nested join, its key, a column of its join or its own ON expression
// (the same value) unless it is a FULL join (whose sides may be null).
func (s *joinScope) keyColumn(e ast.Expr, in *JoinInput) (int, bool) {
	if inner, ok := in.Node.(*Join); ok {
		if s.nestedKey(e, inner) {
			return 0, true
		}
		return -1, false
	}
	c, ok := e.(*ast.ColumnRef)
	if !ok || in.Source.Schema.NumKeys() != 1 {
		return -1, false
	}
	i := in.Source.Schema.Find(c.Name)
	if i < 0 || in.Source.Schema.Columns[i].NS != types.KeyNS {
		return -1, false
	}
	return i, true
}

// nestedKey reports whether e (qualified by alias) is the nested join's key.
func (s *joinScope) nestedKey(e ast.Expr, inner *Join) bool {
	if len(inner.Equalities) > 1 {
		return false // one column of a composite key is not the key
	}
	if c, ok := e.(*ast.ColumnRef); ok && s.flatName(c) == inner.schema.Columns[0].Name {
		return true
	}
	if inner.Type == ast.FullJoin || inner.Foreign() {
		return false // a FK result is keyed by its left's primary key only
	}
	if c, ok := e.(*ast.ColumnRef); ok && slices.Contains(inner.keyCandidates(), s.flatName(c)) {
		return true
	}
	return inner.joinsOn(flatten(e))
}

// checkJoinTypes requires both operands to have the same type.
func (p *Planner) checkJoinTypes(s *joinScope, l, r ast.Expr, ls, rs int, at ast.Pos) error {
	lt, err := p.sideType(s, l, s.sides[ls])
	if err != nil {
		return err
	}
	rt, err := p.sideType(s, r, s.sides[rs])
	if err != nil {
		return err
	}
	if !lt.Equal(rt) {
		return sqlerr.New(sqlerr.Type, at, "Invalid join condition: types don't match. Got %s{%s} = %s{%s}.",
			ast.FormatExpr(l), lt, ast.FormatExpr(r), rt)
	}
	return nil
}

func (p *Planner) sideType(s *joinScope, e ast.Expr, in *JoinInput) (*types.Type, error) {
	c, _, err := p.compileSide(s, in, e)
	if err != nil {
		return nil, err
	}
	return c.Type(), nil
}
