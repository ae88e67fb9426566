package pull

import (
	"bytes"
	"slices"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
)

// LookupKeys returns the sorted, distinct store keys of a pull query
// (its plan) whose WHERE names them: an equality on the single key column
// (`WHERE k = literal`) or an IN list of literals (`WHERE k IN (…)`), so
// that it reads those entries instead of scanning the store.
func LookupKeys(plan *planner.Plan, m *physical.Materialization) ([][]byte, bool) {
	f, ok := plan.Filter()
	keyCols := plan.Sources[0].Schema.Keys()
	if !ok || m.Windowed() || len(keyCols) != 1 {
		return nil, false
	}
	ref, lits := keyLiterals(f.Cond)
	if ref == nil || ref.Name != keyCols[0].Name {
		return nil, false
	}
	keys := make([][]byte, 0, len(lits))
	for _, lit := range lits {
		if lit.Value == nil {
			continue // NULL matches no key
		}
		v, err := expr.Coerce(lit.Value, lit.Type, keyCols[0].Type)
		if err != nil {
			return nil, false
		}
		k, err := m.Key([]any{v})
		if err != nil {
			return nil, false
		}
		keys = append(keys, k)
	}
	slices.SortFunc(keys, bytes.Compare)
	return slices.CompactFunc(keys, bytes.Equal), true
}

// keyLiterals returns the column and literals of `col = literal` or
// `col IN (literal, …)`, or nil.
func keyLiterals(cond ast.Expr) (*ast.ColumnRef, []*ast.Literal) {
	switch c := cond.(type) {
	case *ast.Binary:
		if c.Op != ast.OpEQ {
			return nil, nil
		}
		ref, lit := asRefLiteral(c.L, c.R)
		if ref == nil {
			ref, lit = asRefLiteral(c.R, c.L)
		}
		if ref == nil {
			return nil, nil
		}
		return ref, []*ast.Literal{lit}
	case *ast.In:
		ref, ok := c.X.(*ast.ColumnRef)
		if !ok || c.Not {
			return nil, nil
		}
		lits := make([]*ast.Literal, 0, len(c.List))
		for _, x := range c.List {
			lit, ok := x.(*ast.Literal)
			if !ok {
				return nil, nil
			}
			lits = append(lits, lit)
		}
		return ref, lits
	}
	return nil, nil
}

func asRefLiteral(a, b ast.Expr) (*ast.ColumnRef, *ast.Literal) {
	r, ok1 := a.(*ast.ColumnRef)
	l, ok2 := b.(*ast.Literal)
	if !ok1 || !ok2 {
		return nil, nil
	}
	return r, l
}
