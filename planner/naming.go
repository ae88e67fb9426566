package planner

import (
	"regexp"
	"strconv"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// namer assigns output column names as ksqlDB does (its ColumnNames alias
// generator, applied to the SELECT list before `*` is expanded): the
// alias; the column name of a column reference; for a struct field
// `s->f` the field name, numbered (F, F_1, …) past the names of the
// source's columns and earlier fields; for any other expression the
// next KSQL_COL_n whose number no source column KSQL_COL_n uses.
type namer struct {
	// deferDup leaves duplicate names to a later namer that knows the
	// columns' types (an aggregation's items are named before they are
	// compiled; the projection over them checks).
	deferDup bool
	used     map[string]bool
	gens     map[string]*aliasGen // by name without its _n suffix
}

// aliasGen hands out prefix_n for increasing n, skipping the numbers the
// source's columns use. Every prefix but KSQL_COL drops the _0.
type aliasGen struct {
	prefix   string
	taken    map[int]bool
	next     int
	dropZero bool
}

// generatedPrefix is the prefix of generated column names.
const generatedPrefix = "KSQL_COL"

func newAliasGen(prefix string) *aliasGen {
	return &aliasGen{prefix: prefix, taken: map[int]bool{}, dropZero: prefix != generatedPrefix}
}

func (g *aliasGen) name() string {
	for g.taken[g.next] {
		g.next++
	}
	i := g.next
	g.next++
	if i == 0 && g.dropZero {
		return g.prefix
	}
	return g.prefix + "_" + strconv.Itoa(i)
}

// numbered splits NAME_12 into NAME and 12; a name without a numeric
// suffix has number 0.
var numbered = regexp.MustCompile(`^(.*?)(?:_(\d+))?$`)

func splitNumbered(name string) (string, int) {
	m := numbered.FindStringSubmatch(name)
	if m[2] == "" {
		return m[1], 0
	}
	n, err := strconv.Atoi(m[2])
	if err != nil {
		return name, 0
	}
	return m[1], n
}

// newNamer builds the generators from the columns of the query's source.
func newNamer(src *types.Schema) *namer {
	n := &namer{used: map[string]bool{}, gens: map[string]*aliasGen{}}
	for _, c := range src.Columns {
		base, i := splitNumbered(c.Name)
		n.gen(base).taken[i] = true
	}
	n.gen(generatedPrefix)
	return n
}

func (n *namer) gen(base string) *aliasGen {
	g, ok := n.gens[base]
	if !ok {
		g = newAliasGen(base)
		n.gens[base] = g
	}
	return g
}

// name names an item of type t (nil when not known yet); a name used
// twice is ksqlDB's "Duplicate value columns found in schema: `N` TYPE".
func (n *namer) name(it ast.SelectItem, t *types.Type) (string, error) {
	name := it.Alias
	if name == "" {
		name = n.derived(it.Expr)
	}
	if n.used[name] && !n.deferDup {
		return "", sqlerr.New(sqlerr.Semantic, it.P, "Duplicate value columns found in schema: `%s` %s", name, t)
	}
	n.used[name] = true
	return name, nil
}

// derived names an item without alias. Column references keep their name
// (a repeated one gets _1, _2…: `*` after a column selects it again).
func (n *namer) derived(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.ColumnRef:
		name := e.Name
		for i := 1; n.used[name]; i++ {
			name = e.Name + "_" + strconv.Itoa(i)
		}
		return name
	case *ast.Dereference:
		base, _ := splitNumbered(e.Field)
		return n.gen(base).name()
	}
	return n.gens[generatedPrefix].name()
}

// nameItems gives every SELECT item that is neither a column reference
// nor a star its ksqlDB name up front, in SELECT order, before PARTITION
// BY, GROUP BY or table functions rewrite the expressions (as ksqlDB's
// AstSanitizer does).
func nameItems(items []ast.SelectItem, src *types.Schema) []ast.SelectItem {
	n := newNamer(src)
	out := make([]ast.SelectItem, len(items))
	for i, it := range items {
		if _, isRef := it.Expr.(*ast.ColumnRef); it.Alias == "" && !it.Star && !it.StructStar && !isRef {
			it.Alias = n.derived(it.Expr)
		}
		out[i] = it
	}
	return out
}

// derivedName is the name ksqlDB derives from a column reference or
// struct field, or "" for other expressions.
func derivedName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.ColumnRef:
		return e.Name
	case *ast.Dereference:
		return e.Field
	}
	return ""
}
