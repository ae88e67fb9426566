package planner

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// PlanQuery plans a SELECT as a push or pull query (no sink).
func (p *Planner) PlanQuery(q *ast.Query) (*Plan, error) {
	kind := Push
	if q.Emit == ast.EmitNone {
		kind = Pull
	}
	return p.plan(q, kind)
}

// CreateAsOption configures one PlanCreateAs.
type CreateAsOption func(*createAs)

type createAs struct {
	topicPrefix string
}

// WithTopicPrefix puts prefix before the sink topic's name when the WITH
// clause names no KAFKA_TOPIC (ksql.output.topic.name.prefix; default
// none).
func WithTopicPrefix(prefix string) CreateAsOption {
	return func(c *createAs) { c.topicPrefix = prefix }
}

// PlanCreateAs plans CREATE STREAM|TABLE … AS SELECT. The returned plan's
// Sink is the new source; the caller adds it to the catalog.
func (p *Planner) PlanCreateAs(s *ast.CreateAsSelect, opts ...CreateAsOption) (*Plan, error) {
	var c createAs
	for _, o := range opts {
		o(&c)
	}
	if existing, ok := p.Catalog.Get(s.Name); ok && !s.OrReplace && !s.IfNotExists {
		return nil, sqlerr.New(sqlerr.Exists, s.P, "Cannot add %s '%s': A %s with the same name already exists",
			strings.ToLower(s.Kind.String()), s.Name, strings.ToLower(existing.Kind.String()))
	}
	if s.Query.Limit >= 0 {
		return nil, sqlerr.New(sqlerr.Unsupported, s.P, "CREATE %s AS SELECT statements don't support LIMIT clause.", s.Kind)
	}
	if err := p.checkGlobalAggregate(s); err != nil {
		return nil, err
	}
	plan, err := p.plan(s.Query, Persistent)
	if err != nil {
		return nil, err
	}
	if s.Kind == ast.Stream && plan.outputKind() == ast.Table {
		return nil, sqlerr.New(sqlerr.Semantic, s.P, "Invalid result type. Your SELECT query produces a TABLE. Please use CREATE TABLE AS SELECT statement instead.")
	}
	if s.Kind == ast.Table && plan.outputKind() == ast.Stream {
		return nil, sqlerr.New(sqlerr.Semantic, s.P, "Invalid result type. Your SELECT query produces a STREAM. Please use CREATE STREAM AS SELECT statement instead.")
	}
	if err := checkPersistentJoin(plan, s.Name); err != nil {
		return nil, err
	}
	if err := checkPersistent(plan.project(), s.Name, plan.Windowed); err != nil {
		return nil, err
	}
	sink, err := p.sinkSource(s, plan, c.topicPrefix)
	if err != nil {
		return nil, err
	}
	plan.Sink = sink
	plan.Root = &Sink{Input: plan.Root, Target: sink}
	return plan, nil
}

// checkGlobalAggregate refuses a CREATE TABLE AS SELECT that selects only
// aggregates and has no GROUP BY with ksqlDB's words (its AggregateNode).
func (p *Planner) checkGlobalAggregate(s *ast.CreateAsSelect) error {
	q := s.Query
	if s.Kind != ast.Table || len(q.GroupBy) > 0 || !p.hasAggregate(q.Items, q.Having) {
		return nil
	}
	var calls []string
	for _, it := range q.Items {
		if it.Expr == nil {
			return nil
		}
		outside := false
		ast.Walk(it.Expr, func(x ast.Expr) bool {
			switch x := x.(type) {
			case *ast.Call:
				if p.Aggregates.IsAggregate(x.Name) {
					calls = append(calls, ast.FormatExpr(x))
					return false
				}
			case *ast.ColumnRef:
				outside = true
			}
			return true
		})
		if outside {
			return nil // a column outside the aggregates: the GROUP BY rules say what is wrong
		}
	}
	return sqlerr.New(sqlerr.Semantic, s.P, "CREATE TABLE AS SELECT statement does not support aggregate function [%s] without a GROUP BY clause.", strings.Join(calls, ", "))
}

// PlanInsertInto plans INSERT INTO target SELECT …: the target must be a
// stream whose schema matches the query's (numeric literals selected into
// DECIMAL columns are cast to them, implicitCasts).
func (p *Planner) PlanInsertInto(s *ast.InsertInto) (*Plan, error) {
	if err := knownProps(s.Props, insertProps); err != nil {
		return nil, err
	}
	target, ok := p.Catalog.Get(s.Target)
	if !ok {
		return nil, sqlerr.New(sqlerr.Unknown, s.P, "Source `%s` does not exist.", s.Target) // ksqlDB's UnknownSourceException
	}
	if target.Kind != ast.Stream {
		return nil, sqlerr.New(sqlerr.Semantic, s.P, "INSERT INTO can only be used to insert into a stream. %s is a table.", target.Name)
	}
	if target.ReadOnly {
		return nil, sqlerr.New(sqlerr.Semantic, s.P, "Cannot insert into read-only stream: %s", target.Name)
	}
	if s.Query.Limit >= 0 {
		return nil, sqlerr.New(sqlerr.Unsupported, s.P, "INSERT INTO statements don't support LIMIT clause.")
	}
	plan, err := p.plan(implicitCasts(s.Query, target), Persistent)
	if err != nil {
		return nil, err
	}
	if err := checkPersistent(plan.project(), target.Name, plan.Windowed); err != nil {
		return nil, err
	}
	if err := sameSchema(target.Schema, plan.Root.Schema()); err != nil {
		return nil, sqlerr.New(sqlerr.Semantic, s.P, "Incompatible schema between results and sink.\nResult schema is %s\nSink schema is %s",
			plan.Root.Schema().String(true), target.Schema.String(true))
	}
	plan.Sink = target
	plan.Root = &Sink{Input: plan.Root, Target: target}
	return plan, nil
}

func sameSchema(a, b *types.Schema) error {
	if len(a.Columns) != len(b.Columns) {
		return fmt.Errorf("column count differs")
	}
	for i := range a.Columns {
		x, y := a.Columns[i], b.Columns[i]
		if x.Name != y.Name || x.NS != y.NS || !x.Type.Equal(y.Type) {
			return fmt.Errorf("column %d differs", i)
		}
	}
	return nil
}

func (p *Plan) outputKind() ast.SourceKind {
	if p.Aggregated {
		return ast.Table
	}
	if p.Join != nil {
		return p.Join.Result()
	}
	for _, s := range p.Sources {
		if s.Kind == ast.Table {
			return ast.Table
		}
	}
	return ast.Stream
}

func (p *Planner) plan(q *ast.Query, kind QueryKind) (*Plan, error) {
	if q.NegativeLimit < 0 {
		return nil, negativeLimit(q, kind)
	}
	if kind == Pull && q.Having != nil {
		// PullQueryValidator's, before AggregateAnalyzer's
		return nil, sqlerr.New(sqlerr.Unsupported, q.Having.Position(), "Pull queries don't support HAVING clauses.")
	}
	if err := unsupportedClauses(q); err != nil {
		return nil, err
	}
	ref, ok := q.From.(*ast.TableRef)
	if !ok {
		return p.planJoin(q, kind)
	}
	src, ok := p.Catalog.Get(ref.Name)
	if !ok {
		return nil, sqlerr.New(sqlerr.Unknown, ref.P, "%s does not exist.", ref.Name)
	}
	// An aggregation re-keys its input, dropping a windowed source's
	// window: its bounds are then unknown columns, as in ksqlDB.
	windowed := src.Windowed() && len(q.GroupBy) == 0 && !p.hasAggregate(q.Items, q.Having)
	plan := &Plan{Kind: kind, Sources: []*Source{src}, Limit: q.Limit, Windowed: windowed}
	if err := p.checkTableFunctionClauses(q); err != nil {
		return nil, err
	}
	if kind == Pull {
		if err := checkPull(q); err != nil {
			return nil, err
		}
		if err := p.checkPullTableFunctions(q.Items); err != nil {
			return nil, err
		}
	}
	var node Node = &Scan{Source: src, Alias: ref.Alias}
	scope := expr.SchemaScope(src.Schema, aliases(ref), windowed)
	if q.Where != nil {
		f, err := p.filter(node, q.Where, scope, "WHERE")
		if err != nil {
			return nil, err
		}
		node = f
	}
	items := nameItems(q.Items, src.Schema)
	if len(q.PartitionBy) > 0 {
		if src.Kind == ast.Table {
			return nil, sqlerr.New(sqlerr.Semantic, q.PartitionBy[0].Position(), "Cannot repartition a TABLE source. Only streams can be re-partitioned: use GROUP BY to re-key a table.")
		}
		if err := checkWindowedRepartition(src, q.PartitionBy); err != nil {
			return nil, err
		}
		pb, rewritten, err := p.partitionBy(node, q.PartitionBy, scope, items)
		if err != nil {
			return nil, err
		}
		node, items = pb, rewritten
		scope = expr.SchemaScope(pb.Schema(), aliases(ref), windowed)
	}
	fm, err := p.flatMap(node, q, items, scope, src)
	if err != nil {
		return nil, err
	}
	if fm != nil {
		node = fm
		scope = expr.SchemaScope(fm.Schema(), aliases(ref), src.Windowed())
	}
	if len(q.GroupBy) > 0 || p.hasAggregate(items, q.Having) {
		if len(q.GroupBy) == 0 && kind == Push {
			// ksqlDB aggregates a push query without GROUP BY as one
			// group: the whole stream (or table).
			c := *q
			c.GroupBy = []ast.Expr{&ast.Literal{P: q.P, Value: int32(1), Type: types.IntegerType}}
			q = &c
		}
		agg, rewritten, having, err := p.aggregate(node, q, scope, src.Kind == ast.Table, items)
		if err != nil {
			return nil, err
		}
		if err := checkAggregateFormat(agg, src, q.P); err != nil {
			return nil, err
		}
		node, items = agg, rewritten
		plan.Aggregated = true
		plan.Windowed = agg.Window != nil
		if agg.Window != nil {
			plan.Window = &WindowInfo{Kind: agg.Window.Kind, Size: agg.Window.Size}
		}
		scope = expr.SchemaScope(agg.Schema(), aliases(ref), plan.Windowed)
		if having != nil {
			if node, err = p.filter(node, having, scope, "HAVING"); err != nil {
				return nil, callsAsWritten(err, agg.Calls)
			}
		}
	}
	bounds := kind != Persistent && plan.Windowed && !plan.Aggregated
	proj, err := p.project(node, items, scope, src, ref, bounds)
	if err == nil && kind != Persistent {
		proj.schema = selectOrder(proj.Columns, proj.schema)
	}
	if err != nil {
		return nil, err
	}
	plan.Root = proj
	return plan, nil
}

func aliases(ref *ast.TableRef) []string {
	if ref.Alias != "" {
		return []string{ref.Alias, ref.Name}
	}
	return []string{ref.Name}
}

func unsupportedClauses(q *ast.Query) error {
	switch {
	case q.Window != nil && len(q.GroupBy) == 0:
		return sqlerr.New(sqlerr.Semantic, q.Window.P, "WINDOW clause requires a GROUP BY clause.")
	case q.Having != nil && len(q.GroupBy) == 0:
		return sqlerr.New(sqlerr.Semantic, q.Having.Position(), "HAVING requires GROUP BY")
	case q.Emit == ast.EmitFinal && q.Window == nil:
		return sqlerr.New(sqlerr.Semantic, q.P, "EMIT FINAL is only supported for windowed aggregations.")
	}
	return nil
}

// hasAggregate reports whether any select item or HAVING calls an
// aggregate function.
func (p *Planner) hasAggregate(items []ast.SelectItem, having ast.Expr) bool {
	for _, it := range items {
		if it.Expr != nil && containsAggregate(it.Expr, p.Aggregates) {
			return true
		}
	}
	return having != nil && containsAggregate(having, p.Aggregates)
}

// filter compiles the condition of clause (WHERE or HAVING); a type error
// in it is an "Error in <clause> expression", as ksqlDB's
// FilterTypeValidator words it.
func (p *Planner) filter(in Node, cond ast.Expr, scope expr.Scope, clause string) (*Filter, error) {
	c, err := expr.Compile(cond, scope, p.Registry)
	err = inClause(err, clause)
	var se *sqlerr.Error
	if errors.As(err, &se) && se.Code == sqlerr.Type {
		wrapped := *se
		wrapped.Msg = "Error in " + clause + " expression: " + se.Msg
		return nil, &wrapped
	}
	if err != nil {
		return nil, err
	}
	if k := c.Type().Kind; k != types.KindBoolean && k != types.KindUnknown {
		return nil, sqlerr.New(sqlerr.Type, cond.Position(), "Type error in %s expression: Should evaluate to boolean but is %s (%s) instead.", clause, ast.FormatExpr(cond), c.Type())
	}
	return &Filter{Input: in, Cond: cond, Pred: c}, nil
}

// project returns the plan's top projection.
func (p *Plan) project() *Project {
	n := p.Root
	for {
		if pr, ok := n.(*Project); ok {
			return pr
		}
		n = n.Inputs()[0]
	}
}

// checkPull rejects what pull queries cannot do (as ksqlDB).
func checkPull(q *ast.Query) error {
	switch { // in ksqlDB's order (PullQueryValidator): WINDOW before GROUP BY
	case q.Window != nil:
		return sqlerr.New(sqlerr.Unsupported, q.Window.P, "Pull queries don't support WINDOW clauses.")
	case len(q.GroupBy) > 0:
		return sqlerr.New(sqlerr.Unsupported, q.GroupBy[0].Position(), "Pull queries don't support GROUP BY clauses.")
	case len(q.PartitionBy) > 0:
		return sqlerr.New(sqlerr.Unsupported, q.PartitionBy[0].Position(), "Pull queries don't support PARTITION BY clauses.")
	}
	var selected []ast.Expr
	for _, it := range q.Items {
		selected = append(selected, it.Expr)
	}
	if err := checkPullColumns("SELECT", selected...); err != nil {
		return err
	}
	return checkPullColumns("WHERE", q.Where)
}

// pullOnlyRecordColumns are the pseudo columns a pull query cannot read:
// the store keeps no record position.
var pullOnlyRecordColumns = map[string]bool{"ROWPARTITION": true, "ROWOFFSET": true}

// checkPullColumns rejects references to ROWPARTITION or ROWOFFSET in one
// clause of a pull query, naming them in the order they appear (ksqlDB's
// message).
func checkPullColumns(clause string, exprs ...ast.Expr) error {
	var names []string
	var at ast.Pos
	seen := map[string]bool{}
	for _, e := range exprs {
		ast.Walk(e, func(x ast.Expr) bool {
			if r, ok := x.(*ast.ColumnRef); ok && pullOnlyRecordColumns[r.Name] && !seen[r.Name] {
				if len(names) == 0 {
					at = r.P
				}
				seen[r.Name] = true
				names = append(names, "`"+r.Name+"`")
			}
			return true
		})
	}
	if len(names) == 0 {
		return nil
	}
	return sqlerr.New(sqlerr.Unsupported, at, "Pull queries don't support the following columns in %s clauses: %s", clause, strings.Join(names, ", "))
}

// PlanMaterialization plans the query that keeps a SOURCE table in a
// store so pull queries can read it (ksqlDB's CST query): every column,
// stored, nothing written.
func (p *Planner) PlanMaterialization(src *Source) (*Plan, error) {
	ref := &ast.TableRef{Name: src.Name}
	scope := expr.SchemaScope(src.Schema, aliases(ref), src.Windowed())
	items := []ast.SelectItem{{Star: true}}
	proj, err := p.project(&Scan{Source: src}, items, scope, src, ref, false)
	if err != nil {
		return nil, err
	}
	return &Plan{Kind: Persistent, Sources: []*Source{src}, Sink: src, Limit: -1,
		Root: &Sink{Input: proj, Target: src, MaterializeOnly: true}}, nil
}
