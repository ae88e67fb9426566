package planner

import (
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// joinScope resolves column references over the two sides of a join:
// `x.col` names col of the source aliased x, an unqualified name the one
// source that has it. The sources are the join's leaves: a side that is
// itself a join (an n-way join's left input) brings all of its own.
// Resolved references are rewritten to the join output's column
// ALIAS_COL, so the operators above a join see one flat schema (ksqlDB's
// join schema); a nested join's output already has those names.
type joinScope struct {
	sides  [2]*JoinInput
	leaves []joinLeaf
}

// joinLeaf is one source of a join tree and the side it is on.
type joinLeaf struct {
	alias string
	src   *Source
	side  int
}

func newJoinScope(l, r *JoinInput) *joinScope {
	s := &joinScope{sides: [2]*JoinInput{l, r}}
	for i, in := range s.sides {
		if inner, ok := in.Node.(*Join); ok {
			for _, lf := range inner.leaves {
				s.leaves = append(s.leaves, joinLeaf{alias: lf.alias, src: lf.src, side: i})
			}
			continue
		}
		s.leaves = append(s.leaves, joinLeaf{alias: in.Alias, src: in.Source, side: i})
	}
	return s
}

// side returns the side a reference names (-1: none) or an error.
func (s *joinScope) side(r *ast.ColumnRef) (int, error) {
	lf, err := s.leaf(r)
	if err != nil || lf == nil {
		if err == nil && r.Source == "" {
			return s.flatSide(r.Name), nil
		}
		return -1, err
	}
	return lf.side, nil
}

// leafAlias names the source the first column of e references, as
// ksqlDB's join errors name it.
func (s *joinScope) leafAlias(e ast.Expr) string {
	for _, r := range expr.ColumnRefs(e) {
		if lf, err := s.leaf(r); err == nil && lf != nil {
			return lf.alias
		}
	}
	return ""
}

// flatSide is the nested side whose output has a column name that is no
// source's (a nested FULL join's ROWKEY), or -1.
func (s *joinScope) flatSide(name string) int {
	for i, in := range s.sides {
		if in.Nested() && in.Source.Schema.Find(name) >= 0 {
			return i
		}
	}
	return -1
}

// leaf returns the source a reference names (nil: none) or an error.
func (s *joinScope) leaf(r *ast.ColumnRef) (*joinLeaf, error) {
	if r.Source != "" {
		for i := range s.leaves {
			lf := &s.leaves[i]
			if r.Source == lf.alias || r.Source == lf.src.Name {
				if lf.src.Schema.Find(r.Name) < 0 {
					return nil, sqlerr.New(sqlerr.Unknown, r.P, "column '%s.%s' cannot be resolved", r.Source, r.Name)
				}
				return lf, nil
			}
		}
		return nil, sqlerr.New(sqlerr.Unknown, r.P, "'%s' is not a valid stream/table name or alias.", r.Source)
	}
	var found *joinLeaf
	for i := range s.leaves {
		lf := &s.leaves[i]
		if hasColumn(lf.src, r.Name) {
			if found != nil {
				return nil, sqlerr.New(sqlerr.Semantic, r.P, "Column '%s' is ambiguous. Could be %s.%s or %s.%s.",
					r.Name, found.alias, r.Name, lf.alias, r.Name)
			}
			found = lf
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
	if name, ok := s.rowTime(r); ok {
		return &ast.ColumnRef{P: r.P, Name: name}, nil
	}
	if _, pseudo := expr.PseudoRef(r.Name, false); pseudo && s.knows(r.Source) {
		return &ast.ColumnRef{P: r.P, Name: r.Name}, nil
	}
	lf, err := s.leaf(r)
	if err != nil || lf == nil {
		if err == nil && r.Source == "" && s.flatSide(r.Name) >= 0 {
			return &ast.ColumnRef{P: r.P, Name: r.Name}, nil
		}
		return r, err
	}
	return &ast.ColumnRef{P: r.P, Name: qualified(lf.alias, r.Name)}, nil
}

// rowTime resolves `x.ROWTIME` (unless x has a column so called) to the
// hidden column of x's row time, X_ROWTIME, a windowed source's
// `x.WINDOWSTART` / `x.WINDOWEND` to X_WINDOWSTART / X_WINDOWEND, and
// `x.ROWPARTITION` / `x.ROWOFFSET` of a side carrying its record columns
// to X_ROWPARTITION / X_ROWOFFSET.
func (s *joinScope) rowTime(r *ast.ColumnRef) (string, bool) {
	bound := r.Name == "WINDOWSTART" || r.Name == "WINDOWEND"
	record := r.Name == RowPartitionColumn || r.Name == RowOffsetColumn
	if r.Source == "" || (r.Name != rowTimeColumn && !bound && !record) {
		return "", false
	}
	for _, lf := range s.leaves {
		if r.Source != lf.alias && r.Source != lf.src.Name {
			continue
		}
		if record {
			if i := lf.src.Schema.Find(r.Name); i >= 0 && isRecordColumn(lf.src.Schema.Columns[i]) {
				return qualified(lf.alias, r.Name), true
			}
			continue
		}
		if lf.src.Schema.Find(r.Name) < 0 && (!bound || lf.src.Windowed()) {
			return qualified(lf.alias, r.Name), true
		}
	}
	return "", false
}

// hasColumn reports whether src has a column called name that an
// unqualified reference can name (not a record column: an unqualified
// ROWPARTITION is the joined row's).
func hasColumn(src *Source, name string) bool {
	i := src.Schema.Find(name)
	return i >= 0 && !isRecordColumn(src.Schema.Columns[i])
}

// rewriteItems rewrites the SELECT list: `x.*` becomes x's columns, and
// a column reference keeps its own name as its alias, unless both sides
// have a column of that name: then `x.col` is named X_COL (ksqlDB's
// AstSanitizer).
func (s *joinScope) rewriteItems(items []ast.SelectItem) ([]ast.SelectItem, error) {
	var out []ast.SelectItem
	for _, it := range items {
		if it.Star && it.Source != "" {
			lf, err := s.starLeaf(it)
			if err != nil {
				return nil, err
			}
			for _, c := range lf.src.Schema.Columns {
				if !isRecordColumn(c) {
					out = append(out, ast.SelectItem{P: it.P, Expr: &ast.ColumnRef{P: it.P, Name: qualified(lf.alias, c.Name)}})
				}
			}
			continue
		}
		if it.Expr != nil {
			if r, ok := it.Expr.(*ast.ColumnRef); ok && it.Alias == "" && !s.common(r.Name) && !s.isRowTime(r) {
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

func (s *joinScope) starLeaf(it ast.SelectItem) (*joinLeaf, error) {
	for i := range s.leaves {
		if lf := &s.leaves[i]; it.Source == lf.alias || it.Source == lf.src.Name {
			return lf, nil
		}
	}
	return nil, sqlerr.New(sqlerr.Unknown, it.P, "Source %s does not exist in the FROM clause", it.Source)
}

func (s *joinScope) isRowTime(r *ast.ColumnRef) bool {
	_, ok := s.rowTime(r)
	return ok
}

// knows reports whether source is "" or names a source of the join.
func (s *joinScope) knows(source string) bool {
	for _, lf := range s.leaves {
		if source == lf.alias || source == lf.src.Name {
			return true
		}
	}
	return source == ""
}

// common reports whether more than one source has a column called name.
func (s *joinScope) common(name string) bool {
	n := 0
	for _, lf := range s.leaves {
		if hasColumn(lf.src, name) {
			n++
		}
	}
	return n > 1
}

// flatName is the join output's name of a resolved reference ("" when
// it resolves to no source).
func (s *joinScope) flatName(r *ast.ColumnRef) string {
	lf, err := s.leaf(r)
	if err != nil || lf == nil {
		if r.Source == "" && s.flatSide(r.Name) >= 0 {
			return r.Name
		}
		return ""
	}
	return qualified(lf.alias, r.Name)
}

// selected returns the output names of the column references the SELECT
// list names, ignoring what does not resolve here (an n-way join's inner
// step picks its key before the outer sources are known).
func (s *joinScope) selected(items []ast.SelectItem) (names map[string]bool, star bool) {
	names = map[string]bool{}
	for _, it := range items {
		if it.Star && it.Source == "" {
			star = true
		}
		if r, ok := it.Expr.(*ast.ColumnRef); ok {
			if n := s.flatName(r); n != "" {
				names[n] = true
			}
		}
	}
	return names, star
}
