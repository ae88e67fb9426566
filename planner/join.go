package planner

import (
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// JoinShape says which kinds of sources a join combines.
type JoinShape uint8

// Join shapes. Table–stream is no shape: ksqlDB rejects it.
const (
	StreamTable JoinShape = iota
	TableTable
	StreamStream
)

var shapeNames = [...]string{StreamTable: "Stream-Table", TableTable: "Table-Table", StreamStream: "Stream-Stream"}

// String names the shape as ksqlDB's messages do.
func (s JoinShape) String() string { return shapeNames[s] }

// JoinSide says where a column of a join's output comes from.
type JoinSide uint8

// Join sides. JoinKey is the join key itself (the matched value).
const (
	JoinKey JoinSide = iota
	JoinLeft
	JoinRight
)

// JoinColumn locates one output column of a join in its input rows.
type JoinColumn struct {
	Side  JoinSide
	Index int // column index in that side's schema (JoinKey: unused)
}

// JoinInput is one side of a join: a source read by its alias. Later
// steps (re-keying for a join on a non-key column, a nested join of an
// n-way join) become nodes under Node.
type JoinInput struct {
	Node   Node
	Source *Source
	// Alias qualifies the side's columns: X in `FROM s x`, else the name.
	Alias string
	// Keys are the indexes in its schema of the key columns the side is
	// joined on, one per equality of ON (a multi-column join has several,
	// in ON's order); nil when the side is re-keyed.
	Keys []int
	// Rekey, for a stream joined on anything but its key, computes the
	// join key, one expression per equality: the side is written to a
	// repartition topic keyed by them (Kafka Streams' implicit
	// repartition before a join).
	Rekey      []*expr.Compiled
	RekeyExprs []ast.Expr
	// ForeignKey, on the left table of a foreign-key table–table join,
	// computes the right table's key from a left row (Keys is then the
	// left's primary key, the result's key).
	ForeignKey     *expr.Compiled
	ForeignKeyExpr ast.Expr
	// Reformat, on a right table joined on its key whose key format is
	// not the left's (or on any table of a join keyed in a registry
	// format), sends the table through a repartition topic in the left's
	// key format (alignKeyFormats).
	Reformat bool
	// Aligned, on the right stream of an n-way join's next step keyed in
	// a registry format, marks its re-key by its own key columns
	// (alignKeyFormats), which Kafka Streams numbers no nodes before the
	// step's window stores for, as it does a re-key by expressions.
	Aligned bool
	// Lookup, on the stream side of a join with a global table, computes
	// the table's key from a stream row (Keys is then the stream's
	// key, the result's; none for a keyless stream).
	Lookup     *expr.Compiled
	LookupExpr ast.Expr
}

// KeyIndex is the index of the side's first join column (-1: re-keyed).
func (in *JoinInput) KeyIndex() int {
	if len(in.Keys) == 0 {
		return -1
	}
	return in.Keys[0]
}

// Rekeyed reports whether the side is re-keyed through a repartition topic.
func (in *JoinInput) Rekeyed() bool { return len(in.Rekey) > 0 }

// rekeyExpr is the side's first re-key expression (nil: not re-keyed).
func (in *JoinInput) rekeyExpr() ast.Expr {
	if !in.Rekeyed() {
		return nil
	}
	return in.RekeyExprs[0]
}

// Nested reports whether the side is itself a join (the left input of
// an n-way join): its Source is then that join's output, named after
// the flat schema, with no topic.
func (in *JoinInput) Nested() bool {
	_, ok := in.Node.(*Join)
	return ok
}

// keyName is the qualified name of the side's first join column ("" when
// it joins on an expression).
func (in *JoinInput) keyName() string { return in.keyNameAt(0) }

// keyNameAt is keyName of the side's i-th join column.
func (in *JoinInput) keyNameAt(i int) string {
	q := func(col string) string {
		if in.Nested() {
			return col // already ALIAS_COL
		}
		return qualified(in.Alias, col)
	}
	if !in.Rekeyed() && len(in.Keys) == 0 {
		return "" // a keyless stream joined with a global table
	}
	if !in.Rekeyed() {
		return q(in.Source.Schema.Columns[in.Keys[i]].Name)
	}
	if c, ok := in.RekeyExprs[i].(*ast.ColumnRef); ok {
		return q(c.Name)
	}
	return ""
}

// keyRef is the join column as written in ksqlDB's messages (X.COL).
func (in *JoinInput) keyRef() string {
	if inner, ok := in.Node.(*Join); ok {
		return inner.sourceRef(in.keyName())
	}
	if !in.Rekeyed() && len(in.Keys) == 0 {
		return ""
	}
	if !in.Rekeyed() {
		return in.Alias + "." + in.Source.Schema.Columns[in.KeyIndex()].Name
	}
	if c, ok := in.rekeyExpr().(*ast.ColumnRef); ok {
		return in.Alias + "." + c.Name
	}
	return ""
}

// Join combines two inputs on an equality of their keys. Its output
// schema is the join key (named as ksqlDB picks it) then every column of
// the left input and of the right input qualified as ALIAS_COL; Columns
// says where each output column's value comes from.
type Join struct {
	Type        ast.JoinType
	Shape       JoinShape
	Left, Right JoinInput
	// On is the whole ON condition (qualified), Equalities its equi
	// conjuncts as (left operand, right operand): the join key has one
	// column per equality.
	On         ast.Expr
	Equalities []*ast.Binary
	// Residual, when ON has conjuncts besides the equalities (`AND a.ts >
	// b.ts`), filters the equi-join's matches: compiled over the join's
	// output schema, a pair it does not accept counts as no match.
	Residual     *expr.Compiled
	ResidualExpr ast.Expr
	Within       *ast.JoinWindow // stream–stream joins only
	AsOf         *AsOfJoin       // as-of stream–table joins only
	Columns      []JoinColumn
	// Prefix starts the internal names (stores, topics, nodes) of an
	// n-way join's nested steps: "L_" for the first nested one, as
	// ksqlDB's query context stacker names them.
	Prefix string
	// StoreShift is what Kafka Streams' node numbering of the step's
	// window stores moves by for nodes built before the step: 12 when it
	// is nested as the left of a stream–table step whose right table is
	// reformatted (ksqlDB builds that table first).
	StoreShift int
	schema     *types.Schema
	leaves     []joinLeaf // the sources of the join tree, for references
	// hidden are the output columns `*` does not select: each source's
	// row time, ALIAS_ROWTIME (what `alias.ROWTIME` reads), and the record
	// columns of a side that carries them (ALIAS_ROWPARTITION,
	// ALIAS_ROWOFFSET, join_record.go).
	hidden map[string]bool
}

// rowTimeColumn is the pseudo column a qualified `x.ROWTIME` reads.
const rowTimeColumn = "ROWTIME"

// Visible are the output columns `SELECT *` selects.
func (n *Join) Visible() []types.Column {
	var out []types.Column
	for _, c := range n.schema.Columns {
		if !n.hidden[c.Name] {
			out = append(out, c)
		}
	}
	return out
}

// Schema implements Node.
func (n *Join) Schema() *types.Schema { return n.schema }

// Inputs implements Node.
func (n *Join) Inputs() []Node { return []Node{n.Left.Node, n.Right.Node} }

var _ Node = (*Join)(nil)

// Foreign reports whether the join is a foreign-key table–table join.
func (n *Join) Foreign() bool { return n.Left.ForeignKey != nil }

// Result is the kind of rows the join produces: a stream–table join is a
// stream, a table–table join a table.
func (n *Join) Result() ast.SourceKind {
	if n.Shape == TableTable {
		return ast.Table
	}
	return ast.Stream
}

// String is the join's EXPLAIN detail.
func (n *Join) String() string {
	shape := n.Shape.String()
	if n.Foreign() {
		shape += " (foreign key)"
	}
	if n.Global() {
		shape += " (global)"
	}
	s := "Type: " + joinTypeNames[n.Type] + " | " + shape + " | On: " + ast.FormatExpr(n.On)
	if n.AsOf != nil {
		s += n.AsOf.String()
	}
	return s
}

var joinTypeNames = [...]string{ast.InnerJoin: "INNER", ast.LeftJoin: "LEFT", ast.RightJoin: "RIGHT", ast.FullJoin: "FULL"}

// joinTypeText is how ksqlDB spells a join type in its messages.
var joinTypeText = [...]string{ast.InnerJoin: "[INNER] JOIN", ast.LeftJoin: "LEFT [OUTER] JOIN",
	ast.RightJoin: "RIGHT [OUTER] JOIN", ast.FullJoin: "[FULL] OUTER JOIN"}

// qualified is the name of a side's column in the join output.
func qualified(alias, col string) string { return alias + "_" + col }

// joinInputs resolves the two inputs of a join. A left input that is
// itself a join (FROM a JOIN b … JOIN c …: a left-deep tree) is planned
// first, with its key picked from the query's SELECT list as if it were
// the whole query, then read by its flat output schema.
func (p *Planner) joinInputs(j *ast.Join, items []ast.SelectItem, refs recordRefs, prefix string) (JoinInput, JoinInput, error) {
	var sides [2]JoinInput
	for i, rel := range []ast.Relation{j.Left, j.Right} {
		if nested, ok := rel.(*ast.Join); ok {
			in, err := p.nestedInput(nested, items, refs, prefix+"L_")
			if err != nil {
				return JoinInput{}, JoinInput{}, err
			}
			sides[i] = in
			continue
		}
		ref, ok := rel.(*ast.TableRef)
		if !ok {
			return JoinInput{}, JoinInput{}, sqlerr.New(sqlerr.Unsupported, j.P, "Only a join's left input may be a join")
		}
		src, ok := p.Catalog.Get(ref.Name)
		if !ok {
			return JoinInput{}, JoinInput{}, sqlerr.New(sqlerr.Unknown, ref.P, "%s does not exist.", ref.Name)
		}
		alias := ref.Alias
		if alias == "" {
			alias = ref.Name
		}
		if refs.carries(ref, alias) {
			src = withRecordColumns(src)
		}
		sides[i] = JoinInput{Node: &Scan{Source: src, Alias: ref.Alias}, Source: src, Alias: alias}
	}
	l, r := sides[0], sides[1]
	for _, lf := range newJoinScope(&l, &r).leaves {
		if lf.side == 0 && lf.src.Name == r.Source.Name {
			return l, r, sqlerr.New(sqlerr.Unsupported, j.P, "Can not join '%s' to '%s': self joins are not yet supported.", lf.src.Name, r.Source.Name)
		}
	}
	return l, r, nil
}

// nestedInput plans a nested join step as the input of the next one.
func (p *Planner) nestedInput(j *ast.Join, items []ast.SelectItem, refs recordRefs, prefix string) (JoinInput, error) {
	n, scope, err := p.joinNode(j, items, refs, prefix)
	if err != nil {
		return JoinInput{}, err
	}
	names, star := scope.selected(items)
	n.layout(pickJoinKey(names, star, n))
	if err := p.compileResidual(n, scope); err != nil {
		return JoinInput{}, err
	}
	src := &Source{Kind: n.Result(), Schema: n.schema, KeyFormat: n.leaves[0].src.KeyFormat, ValueFormat: n.leaves[0].src.ValueFormat,
		Partitions: n.leaves[0].src.Partitions}
	return JoinInput{Node: n, Source: src, Alias: n.leaves[0].alias}, nil
}

// sourceRef spells an output column of the join as its source's column
// (X.COL), or as it is when it is no source's.
func (n *Join) sourceRef(name string) string {
	for _, lf := range n.leaves {
		for _, c := range lf.src.Schema.Columns {
			if qualified(lf.alias, c.Name) == name {
				return lf.alias + "." + c.Name
			}
		}
	}
	return name
}

// Sources are the sources of the join tree, leftmost first.
func (n *Join) Sources() []*Source {
	out := make([]*Source, len(n.leaves))
	for i, lf := range n.leaves {
		out[i] = catalogSource(lf.src)
	}
	return out
}

// joinShape classifies the join and rejects the kinds ksqlDB rejects.
func joinShape(j *ast.Join, l, r JoinInput) (JoinShape, error) {
	lk, rk := l.Source.Kind, r.Source.Kind
	got := l.Alias + " " + joinTypeText[j.Type] + " " + r.Alias
	switch {
	case lk == ast.Table && rk == ast.Stream:
		return 0, sqlerr.New(sqlerr.Semantic, j.P, "Invalid join order: table-stream joins are not supported; only stream-table joins. Got %s.", got)
	case lk == ast.Stream && rk == ast.Stream:
		if j.Within == nil {
			return 0, sqlerr.New(sqlerr.Semantic, j.P, "Stream-Stream joins must have a WITHIN clause specified. None was provided. To learn about how to specify a WITHIN clause with a stream-stream join, please visit: https://docs.confluent.io/current/ksql/docs/syntax-reference.html#create-stream-as-select")
		}
		return StreamStream, nil
	case lk == ast.Stream && j.Type == ast.FullJoin:
		return 0, sqlerr.New(sqlerr.Semantic, j.P, "Invalid join type: full-outer join not supported for stream-table join. Got %s.", got)
	case lk == ast.Stream && j.Type == ast.RightJoin:
		return 0, sqlerr.New(sqlerr.Semantic, j.P, "Invalid join type encountered: %s", joinTypeText[j.Type])
	}
	shape := StreamTable
	if lk == ast.Table {
		shape = TableTable
	}
	if j.Within != nil {
		return 0, sqlerr.New(sqlerr.Semantic, j.P, "A window definition was provided for a %s join. These joins are not windowed. Please drop the window definition (ie. the WITHIN clause) and try to submit your query again.", shape)
	}
	return shape, nil
}

// checkJoinSources rejects sources a join cannot read: KAFKA values,
// windowed sources and multi-column keys.
func checkJoinSources(j *ast.Join, l, r JoinInput) error {
	var kafka []string
	for _, s := range []*Source{l.Source, r.Source} {
		if s.ValueFormat.Name == format.Kafka {
			kafka = append(kafka, s.Name)
		}
	}
	if len(kafka) > 0 {
		return sqlerr.New(sqlerr.Unsupported, j.P, "Source(s) %s are using the 'KAFKA' value format. This format does not yet support JOIN.", strings.Join(kafka, ", "))
	}
	if l.Source.Windowed() != r.Source.Windowed() {
		return sqlerr.New(sqlerr.Semantic, j.P, "Can not join windowed source to non-windowed source.\n`%s` is %s\n`%s` is %s",
			l.Source.Name, windowedText(l.Source), r.Source.Name, windowedText(r.Source))
	}
	if err := checkWindowedKinds(j, l, r); err != nil {
		return err
	}

	for _, s := range []*Source{l.Source, r.Source} {
		// a keyless stream may still join: it is re-keyed; a table with
		// several key columns is joined on all of them (multiCondition)
		// or, on the left, by foreign key
		if s.Schema.NumKeys() == 0 && s.Kind == ast.Table {
			return sqlerr.New(sqlerr.Unsupported, j.P, "JOINs are not supported with multiple key columns")
		}
	}
	return nil

}

func windowedText(s *Source) string {
	if !s.Windowed() {
		return "not windowed"
	}
	return windowKindText(s) + " windowed"
}
