package pull

import (
	"fmt"
	"strings"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// Pull-query WHERE rules, as ksqlDB checks them before it reads a table:
//
//   - always: a key column is never compared with NULL (no key is NULL),
//     and the values of `key IN (…)` must have the key's type (or widen
//     to it), so a typo is an error rather than an empty answer;
//   - with ksql.query.pull.table.scan.enabled=false: every OR-disjunct of
//     the WHERE names each key column exactly once, as `key = e` or
//     `key IN (e, …)` where e has no column references (other columns may
//     be filtered besides); with ksql.query.pull.range.scan.enabled a
//     single-disjunct WHERE may bound a lone STRING key of an unwindowed
//     table by <, <=, > or >= instead. Anything else would read the whole
//     table, which the user has turned off.

// CheckLimit refuses a pull query's LIMIT when the user turned the
// clause off (enabled is ksql.query.pull.limit.clause.enabled), with
// ksqlDB's message.
func CheckLimit(plan *planner.Plan, enabled bool, pos ast.Pos) error {
	if plan.Kind != planner.Pull || plan.Limit < 0 || enabled {
		return nil
	}
	return sqlerr.New(sqlerr.Unsupported, pos, "LIMIT clause in pull queries is currently disabled. You can enable them by setting %s=true. See https://cnfl.io/queries for more info.\nAdd EMIT CHANGES if you intended to issue a push query.", props.PullLimit)
}

// Where is the table a WHERE is checked against: its key columns,
// whether it is windowed, and what the user lets a pull query scan.
type Where struct {
	Keys     []types.Column
	Windowed bool
	Scan     props.PullScan
}

// Check returns the first rule cond (nil: no WHERE) breaks.
func (w Where) Check(cond ast.Expr, pos ast.Pos) error {
	if cond != nil {
		if err := w.checkKeyValues(cond); err != nil {
			return err
		}
	}
	if w.Scan.Table {
		return nil
	}
	if cond == nil {
		return errNeedsTableScan(pos)
	}
	disjuncts := splitOp(cond, ast.OpOr, nil)
	for _, d := range disjuncts {
		if err := w.checkDisjunct(d, len(disjuncts) == 1); err != nil {
			return err
		}
	}
	return nil
}

// checkKeyValues applies the rules that hold whatever scans are enabled.
func (w Where) checkKeyValues(cond ast.Expr) error {
	var err error
	ast.Walk(cond, func(x ast.Expr) bool {
		if err == nil {
			err = w.checkKeyValue(x)
		}
		return err == nil
	})
	return err
}

func (w Where) checkKeyValue(x ast.Expr) error {
	switch c := x.(type) {
	case *ast.Binary:
		if c.Op < ast.OpEQ || c.Op > ast.OpGE {
			return nil
		}
		for _, pair := range [2][2]ast.Expr{{c.L, c.R}, {c.R, c.L}} {
			if k, ok := w.keyRef(pair[0]); ok && isNullLiteral(pair[1]) {
				return sqlerr.New(sqlerr.Type, c.P, "Error in WHERE expression: Comparison with NULL not supported: %s %s NULL", k.Type, c.Op)
			}
		}
	case *ast.In:
		if k, ok := w.keyRef(c.X); ok && !c.Not {
			return checkInValues(c, k)
		}
	}
	return nil
}

// checkInValues refuses NULL and values that do not convert to the key's
// type in `key IN (…)`.
func checkInValues(c *ast.In, k types.Column) error {
	for _, v := range c.List {
		lit, ok := v.(*ast.Literal)
		if !ok {
			continue
		}
		if lit.Value == nil {
			return sqlerr.New(sqlerr.Semantic, lit.P, "Primary key columns can not be NULL: (%s = null)", k.Name)
		}
		if _, widens := functions.CanImplicitlyCast(lit.Type, k.Type); !widens && !lit.Type.Equal(k.Type) {
			return sqlerr.New(sqlerr.Type, lit.P, "%s can not be converted to the type of the key column: %s %s KEY", ast.FormatExpr(lit), k.Name, k.Type)
		}
	}
	return nil
}

// checkDisjunct checks one OR-branch with table scans off: each key
// column bound once, by equality (or, when alone may, by a range).
func (w Where) checkDisjunct(d ast.Expr, alone bool) error {
	bound := map[string]bool{}
	ranged := false
	for _, c := range splitOp(d, ast.OpAnd, nil) {
		k, isRange, err := w.keyBound(c)
		if err != nil {
			return err
		}
		if k == "" {
			continue // a filter on other columns
		}
		if bound[k] {
			return sqlerr.New(sqlerr.Unsupported, c.Position(), "A comparison condition on the key column cannot be combined with other comparisons such as an IN predicate.")
		}
		bound[k], ranged = true, ranged || isRange
	}
	if err := w.checkAllKeys(d, bound); err != nil {
		return err
	}
	if ranged && !(alone && w.Scan.KeyRange && w.rangeable()) {
		return errNeedsTableScan(d.Position())
	}
	return nil
}

// keyBound classifies one conjunct: the key column it bounds ("" for
// none), whether by a range, or why it cannot be served by a lookup.
func (w Where) keyBound(c ast.Expr) (key string, isRange bool, err error) {
	if !w.refersToKey(c) {
		return "", false, nil
	}
	switch c := c.(type) {
	case *ast.Binary:
		return w.comparisonBound(c)
	case *ast.In:
		k, ok := w.keyRef(c.X)
		if !ok || c.Not {
			return "", false, errNeedsTableScan(c.P)
		}
		for _, v := range c.List {
			if len(expr.ColumnRefs(v)) > 0 {
				return "", false, errUnresolvable(v)
			}
		}
		return k.Name, false, nil
	}
	return "", false, errNeedsTableScan(c.Position())
}

// comparisonBound classifies `a op b` that refers to a key column.
func (w Where) comparisonBound(c *ast.Binary) (string, bool, error) {
	if c.Op < ast.OpEQ || c.Op > ast.OpGE {
		return "", false, errNeedsTableScan(c.P) // AND/OR nested inside, or arithmetic
	}
	k, ok := w.keyRef(c.L)
	other := c.R
	if !ok {
		k, ok = w.keyRef(c.R)
		other = c.L
	}
	switch {
	case !ok:
		return "", false, sqlerr.New(sqlerr.Unsupported, c.P, "A comparison must directly reference a key column.")
	case len(expr.ColumnRefs(other)) > 0:
		return "", false, errUnresolvable(other)
	case c.Op == ast.OpNE:
		return "", false, sqlerr.New(sqlerr.Unsupported, c.P, "Bound on key columns '[`%s` %s KEY]' must currently be '='.", k.Name, k.Type)
	}
	return k.Name, c.Op != ast.OpEQ, nil
}

// checkAllKeys requires every key column among the bound ones.
func (w Where) checkAllKeys(d ast.Expr, bound map[string]bool) error {
	if len(w.Keys) == 1 {
		if !bound[w.Keys[0].Name] {
			return sqlerr.New(sqlerr.Unsupported, d.Position(), "WHERE clause missing key column for disjunct: %s. Set %s=true to scan the table.", ast.FormatExpr(d), props.PullTableScan)
		}
		return nil
	}
	var specified, expected []string
	for _, k := range w.Keys {
		expected = append(expected, "`"+k.Name+"`")
		if bound[k.Name] {
			specified = append(specified, "`"+k.Name+"`")
		}
	}
	if len(specified) == len(expected) {
		return nil
	}
	return sqlerr.New(sqlerr.Unsupported, d.Position(), "Multi-column sources must specify every key in the WHERE clause. Specified: [%s] Expected: [%s].",
		strings.Join(specified, ", "), strings.Join(expected, ", "))
}

// rangeable reports whether a key range can be read without a scan: one
// STRING key of an unwindowed table (its bytes sort as the strings).
func (w Where) rangeable() bool {
	return !w.Windowed && len(w.Keys) == 1 && w.Keys[0].Type.Kind == types.KindString
}

// keyRef returns the key column e is, if it is one.
func (w Where) keyRef(e ast.Expr) (types.Column, bool) {
	ref, ok := e.(*ast.ColumnRef)
	if !ok {
		return types.Column{}, false
	}
	for _, k := range w.Keys {
		if k.Name == ref.Name {
			return k, true
		}
	}
	return types.Column{}, false
}

func (w Where) refersToKey(e ast.Expr) bool {
	for _, ref := range expr.ColumnRefs(e) {
		if _, ok := w.keyRef(ref); ok {
			return true
		}
	}
	return false
}

// splitOp flattens a tree of op (AND or OR) into its operands.
func splitOp(e ast.Expr, op ast.BinaryOp, out []ast.Expr) []ast.Expr {
	if b, ok := e.(*ast.Binary); ok && b.Op == op {
		return splitOp(b.R, op, splitOp(b.L, op, out))
	}
	return append(out, e)
}

func isNullLiteral(e ast.Expr) bool {
	lit, ok := e.(*ast.Literal)
	return ok && lit.Value == nil
}

func errUnresolvable(e ast.Expr) error {
	return sqlerr.New(sqlerr.Unsupported, e.Position(), "A comparison must be between a key column and a resolvable expression.")
}

func errNeedsTableScan(pos ast.Pos) error {
	return sqlerr.New(sqlerr.Unsupported, pos, "%s", fmt.Sprintf(
		"Query requires table scan to be enabled. Table scans can be enabled by setting %s=true", props.PullTableScan))
}
