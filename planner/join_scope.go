package planner

import (
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// joinScope resolves column references over the two sides of a join:
// `x.col` names col of the side aliased x, an unqualified name the one
// side that has it. Resolved references are rewritten to the join
// output's column ALIAS_COL, so the operators above a join see one flat
// schema (ksqlDB's join schema).
type joinScope struct {
	sides [2]*JoinInput
}

// side returns the side a reference names (-1: none) or an error.
func (s *joinScope) side(r *ast.ColumnRef) (int, error) {
	if r.Source != "" {
		for i, in := range s.sides {
			if r.Source == in.Alias || r.Source == in.Source.Name {
				if in.Source.Schema.Find(r.Name) < 0 {
					return -1, sqlerr.New(sqlerr.Unknown, r.P, "column '%s.%s' cannot be resolved", r.Source, r.Name)
				}
				return i, nil
			}
		}
		return -1, sqlerr.New(sqlerr.Unknown, r.P, "'%s' is not a valid stream/table name or alias.", r.Source)
	}
	found := -1
	for i, in := range s.sides {
		if in.Source.Schema.Find(r.Name) >= 0 {
			if found >= 0 {
				return -1, sqlerr.New(sqlerr.Semantic, r.P, "Column '%s' is ambiguous. Could be %s.%s or %s.%s.",
					r.Name, s.sides[0].Alias, r.Name, s.sides[1].Alias, r.Name)
			}
			found = i
		}
	}
	return found, nil
}

// rewrite maps the references of e to join output columns. Pseudo
// columns (ROWTIME, …) stay unqualified: they read the joined row's
// record. Lambda parameters are left alone.
func (s *joinScope) rewrite(e ast.Expr) (ast.Expr, error) {
	var first error
	var walk func(e ast.Expr, params map[string]bool) ast.Expr
	walk = func(e ast.Expr, params map[string]bool) ast.Expr {
		return ast.Rewrite(e, func(x ast.Expr) (ast.Expr, bool) {
			switch x := x.(type) {
			case *ast.ColumnRef:
				if x.Source == "" && params[x.Name] {
					return x, true
				}
				out, err := s.rewriteRef(x)
				if err != nil && first == nil {
					first = err
				}
				return out, true
			case *ast.Lambda:
				inner := map[string]bool{}
				for k := range params {
					inner[k] = true
				}
				for _, p := range x.Params {
					inner[p] = true
				}
				c := *x
				c.Body = walk(x.Body, inner)
				return &c, true
			}
			return nil, false
		})
	}
	out := walk(e, map[string]bool{})
	return out, first
}

func (s *joinScope) rewriteRef(r *ast.ColumnRef) (ast.Expr, error) {
	if _, pseudo := expr.PseudoRef(r.Name, false); pseudo && s.knows(r.Source) {
		return &ast.ColumnRef{P: r.P, Name: r.Name}, nil
	}
	i, err := s.side(r)
	if err != nil || i < 0 {
		return r, err
	}
	return &ast.ColumnRef{P: r.P, Name: qualified(s.sides[i].Alias, r.Name)}, nil
}

// rewriteItems rewrites the SELECT list: `x.*` becomes x's columns, and
// a column reference keeps its own name as its alias, unless both sides
// have a column of that name: then `x.col` is named X_COL (ksqlDB's
// AstSanitizer).
func (s *joinScope) rewriteItems(items []ast.SelectItem) ([]ast.SelectItem, error) {
	var out []ast.SelectItem
	for _, it := range items {
		if it.Star && it.Source != "" {
			side, err := s.starSide(it)
			if err != nil {
				return nil, err
			}
			for _, c := range side.Source.Schema.Columns {
				out = append(out, ast.SelectItem{P: it.P, Expr: &ast.ColumnRef{P: it.P, Name: qualified(side.Alias, c.Name)}})
			}
			continue
		}
		if it.Expr != nil {
			if r, ok := it.Expr.(*ast.ColumnRef); ok && it.Alias == "" && !s.common(r.Name) {
				it.Alias = r.Name
			}
			e, err := s.rewrite(it.Expr)
			if err != nil {
				return nil, err
			}
			it.Expr = e
		}
		out = append(out, it)
	}
	return out, nil
}

func (s *joinScope) starSide(it ast.SelectItem) (*JoinInput, error) {
	for _, in := range s.sides {
		if it.Source == in.Alias || it.Source == in.Source.Name {
			return in, nil
		}
	}
	return nil, sqlerr.New(sqlerr.Unknown, it.P, "Source %s does not exist in the FROM clause", it.Source)
}

// knows reports whether source is "" or names a side.
func (s *joinScope) knows(source string) bool {
	for _, in := range s.sides {
		if source == in.Alias || source == in.Source.Name {
			return true
		}
	}
	return source == ""
}

// common reports whether both sides have a column called name.
func (s *joinScope) common(name string) bool {
	return s.sides[0].Source.Schema.Find(name) >= 0 && s.sides[1].Source.Schema.Find(name) >= 0
}
