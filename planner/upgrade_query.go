package planner

import (
	"fmt"
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// CREATE OR REPLACE … AS SELECT of a sink whose query runs replaces that
// query in place: same query id, consumer group and sink topic, going on
// from its committed offsets. CheckQueryUpgrade decides whether next may
// replace old, as ksqlDB's checks do, in their order and words:
//
//	1. the sink as a source (name, type, topic, timestamp column, schema:
//	   value columns may only be added at the end; DataSource#canUpgradeTo)
//	2. the plans, from the sink down to the source, skipping the passive
//	   steps (WHERE, projection), which may be added, removed or changed;
//	   every other step (ExecutionStep#validateUpgrade) must be in both
//	   plans, matching:
//
//	   sink           kind, topic, formats, timestamp column
//	   PARTITION BY   key expressions
//	   aggregation    statefulUpgrade: see there
//	   join           statefulUpgrade: see there
//	   table function refused (ksqlDB has no upgrade rule for it)
//	   source         kind, topic, formats, timestamp column
//
// Each refusal is one rule below; the first that refuses names the
// step and what differs.

// UpgradeReport is what an accepted upgrade changes, for EXPLAIN CREATE OR
// REPLACE and the statement's answer.
type UpgradeReport struct {
	Sink string
	// Added are the sink's new value columns (at the end).
	Added []types.Column
	// Changes name the passive steps that change: "WHERE added: …".
	Changes []string
	// Stateful is set when the query keeps state (an aggregation's store)
	// across the upgrade.
	Stateful bool
}

// String prints the report, one fact a line.
func (r *UpgradeReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "in place: the query of %s keeps its id, consumer group, sink topic and committed offsets\n", r.Sink)
	if len(r.Added) > 0 {
		fmt.Fprintf(&b, "sink columns added: %s\n", columnList(r.Added))
	} else {
		b.WriteString("sink columns: unchanged\n")
	}
	for _, c := range r.Changes {
		b.WriteString(c + "\n")
	}
	if r.Stateful {
		b.WriteString("state: the aggregation keeps its store and changelog\n")
	}
	return b.String()
}

// CheckQueryUpgrade checks that next may replace old, the running query
// of the same sink, in place; the error is ksqlDB's refusal.
func CheckQueryUpgrade(old, next *Plan, pos ast.Pos) (*UpgradeReport, error) {
	if err := CheckSinkUpgrade(old.Sink, next.Sink, pos); err != nil {
		return nil, err
	}
	if err := checkSteps(upgradeSteps(old.Root), upgradeSteps(next.Root), pos); err != nil {
		return nil, err
	}
	r := &UpgradeReport{Sink: next.Sink.Name, Added: next.Sink.Schema.Columns[len(old.Sink.Schema.Columns):]}
	r.Changes = passiveChanges(old.Root, next.Root)
	r.Stateful = old.Aggregated
	return r, nil
}

// checkSinkUpgrade is ksqlDB's DataSource#canUpgradeTo for the sink: the
// properties first, then the schema (checkUpgrade).
func CheckSinkUpgrade(old, next *Source, pos ast.Pos) error {
	var issues []string
	prop := func(name, a, b string) {
		if a != b {
			issues = append(issues, fmt.Sprintf("DataSource '`%s`' has %s = %s which is not upgradeable to %s", old.Name, name, a, b))
		}
	}
	prop("type", sourceType(old.Kind), sourceType(next.Kind))
	prop("topic", topicText(old), topicText(next))
	prop("timestampColumn", timestampText(old), timestampText(next))
	if len(issues) > 0 {
		return sqlerr.New(sqlerr.Semantic, pos, "Cannot upgrade data source: %s", strings.Join(issues, "\n\tAND "))
	}
	return checkUpgrade(old, next, pos)
}

func sourceType(k ast.SourceKind) string {
	if k == ast.Table {
		return "KTABLE"
	}
	return "KSTREAM"
}

func topicText(s *Source) string {
	return fmt.Sprintf("KsqlTopic{kafkaTopicName='%s', keyFormat=%s, valueFormat=%s}", s.Topic, formatText(s.KeyFormat), formatText(s.ValueFormat))
}

func formatText(f format.Spec) string {
	s := f.Name
	if f.Delimiter != 0 {
		s += fmt.Sprintf("(delimiter=%q)", f.Delimiter)
	}
	if f.WrapSingle != nil {
		s += fmt.Sprintf("(wrapSingleValue=%t)", *f.WrapSingle)
	}
	return s
}

func timestampText(s *Source) string {
	if s.TimestampColumn == "" {
		return "Optional.empty"
	}
	return "Optional[" + s.TimestampColumn + "]"
}

// upgradeStep is one step of a plan as ksqlDB's upgrade check sees it:
// its class (ksqlDB's execution step), the properties that must match,
// in ksqlDB's order, and the plan node.
type upgradeStep struct {
	class string
	props []stepProp
	node  Node
	// source marks the plan's source step, join marks a join: below it
	// the plan has two inputs.
	source, join bool
}

type stepProp struct{ name, value string }

// upgradeSteps lists the enforcing steps of a plan from its sink down;
// passive steps (Filter, Project) are left out.
func upgradeSteps(root Node) []upgradeStep {
	var out []upgradeStep
	for n := root; n != nil; {
		st, ok := stepOf(n)
		if ok {
			out = append(out, st...)
		}
		in := n.Inputs()
		if len(in) != 1 {
			break
		}
		n = in[0]
	}
	return out
}

// stepOf is the step (or steps: an aggregation is a group-by and an
// aggregate) of n; ok is false for a passive node.
func stepOf(n Node) ([]upgradeStep, bool) {
	switch n := n.(type) {
	case *Sink:
		t := n.Target
		return []upgradeStep{{class: kindClass(t.Kind) + "Sink", node: n, props: []stepProp{
			{"formats", formatsText(t)}, {"topicName", t.Topic}, {"timestampColumn", timestampText(t)}}}}, true
	case *PartitionBy:
		return []upgradeStep{{class: "StreamSelectKey", node: n, props: []stepProp{{"keyExpressions", exprList(n.Exprs)}}}}, true
	case *FlatMap:
		return []upgradeStep{{class: "StreamFlatMap", node: n}}, true
	case *Aggregate:
		return aggregateSteps(n), true
	case *Join:
		return []upgradeStep{{class: joinClass(n), node: n, join: true}}, true
	case *Scan:
		return []upgradeStep{sourceStep(n)}, true
	}
	return nil, false
}

func kindClass(k ast.SourceKind) string {
	if k == ast.Table {
		return "Table"
	}
	return "Stream"
}

func formatsText(s *Source) string {
	return "Formats{keyFormat=" + formatText(s.KeyFormat) + ", valueFormat=" + formatText(s.ValueFormat) + "}"
}

func exprList(es []ast.Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = canonical(e)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func sourceStep(n *Scan) upgradeStep {
	s := n.Source
	class := kindClass(s.Kind) + "Source"
	if s.Windowed() {
		class = "Windowed" + class
	}
	return upgradeStep{class: class, node: n, source: true, props: []stepProp{
		{"topicName", s.Topic}, {"formats", formatsText(s)}, {"timestampColumn", timestampText(s)}}}
}

// aggregateSteps are ksqlDB's steps of an aggregation, from the top: the
// suppression of EMIT FINAL, the aggregate (stream, windowed or table),
// then the grouping (by the key or re-keying).
func aggregateSteps(n *Aggregate) []upgradeStep {
	var out []upgradeStep
	if n.Final {
		out = append(out, upgradeStep{class: "TableSuppress", node: n})
	}
	switch {
	case n.OnTable:
		return append(out, upgradeStep{class: "TableAggregate", node: n}, upgradeStep{class: "TableGroupBy", node: n})
	case n.Window != nil:
		out = append(out, upgradeStep{class: "StreamWindowedAggregate", node: n})
	default:
		out = append(out, upgradeStep{class: "StreamAggregate", node: n, props: []stepProp{
			{"columns not part of aggregate", "[" + strings.Join(quoted(n.Required), ", ") + "]"},
			{"aggregate functions", aggregateFunctions(n)}}})
	}
	if n.Repartition {
		return append(out, upgradeStep{class: "StreamGroupBy", node: n, props: []stepProp{{"group by clause", exprList(n.GroupBy)}}})
	}
	return append(out, upgradeStep{class: "StreamGroupByKey", node: n})
}

func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "`" + n + "`"
	}
	return out
}

// aggregateFunctions prints the aggregate calls as ksqlDB lists them
// (COUNT(*) counts ROWTIME).
func aggregateFunctions(n *Aggregate) string {
	parts := make([]string, len(n.Calls))
	for i, c := range n.Calls {
		call := *c.Call
		if call.Star {
			call.Star, call.Args = false, []ast.Expr{&ast.ColumnRef{Name: "ROWTIME"}}
		}
		parts[i] = canonical(&call)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func joinClass(n *Join) string {
	switch {
	case n.Foreign():
		return "ForeignKeyTableTableJoin"
	case n.Shape == TableTable:
		return "TableTableJoin"
	case n.Shape == StreamStream:
		return "StreamStreamJoin"
	}
	return "StreamTableJoin"
}

// supportsUpgrade lists the steps ksqlDB has an upgrade rule for; the
// others are refused where the check reaches them.
var supportsUpgrade = map[string]bool{
	"StreamSink": true, "TableSink": true, "StreamSelectKey": true, "StreamSource": true, "TableSource": true,
	"StreamAggregate": true, "StreamGroupBy": true, "StreamGroupByKey": true,
}

// checkSteps walks both step lists from the sink down, as ksqlDB's
// validateUpgrade does.
func checkSteps(old, next []upgradeStep, pos ast.Pos) error {
	for i, o := range old {
		if i >= len(next) {
			return notUpgradeable(pos, "Plan step of type %s must have matching class. Values differ: %s vs. (none)", o.class, o.class)
		}
		if err := checkStep(o, next[i], pos); err != nil {
			return err
		}
	}
	if len(next) > len(old) {
		return notYetSupported(next[len(old)], pos)
	}
	return nil
}

// checkStep checks one step of the old plan against the next plan's.
func checkStep(o, n upgradeStep, pos ast.Pos) error {
	switch {
	case o.join || isStateful(o):
		return statefulUpgrade(o, n, pos)
	case !supportsUpgrade[o.class]:
		return notYetSupported(o, pos)
	case o.source && n.join:
		return notUpgradeable(pos, "Cannot change a non-join source into a join source.")
	case o.source && !n.source:
		return notYetSupported(n, pos)
	}
	return mustMatch(o, n, pos)
}

// isStateful reports whether a step keeps state across records: an
// aggregation's steps.
func isStateful(s upgradeStep) bool {
	_, ok := s.node.(*Aggregate)
	return ok
}

// statefulUpgrade decides whether a stateful step (an aggregation or a
// join) of the old plan may become n, keeping the query's stores and
// changelogs as they are: ksqlDB's rules. A stream aggregation may change
// what is above or below it (WHERE, HAVING, the projection) as long as it
// reads the same columns and computes the same aggregates, so the store's
// rows and the repartition topic's records keep their shape; windowed and
// table aggregations, EMIT FINAL and joins are refused.
func statefulUpgrade(o, n upgradeStep, pos ast.Pos) error {
	if !supportsUpgrade[o.class] {
		return notYetSupported(o, pos)
	}
	return mustMatch(o, n, pos)
}

// mustMatch is ksqlDB's ExecutionStep#mustMatch: the class, then each
// property in order.
func mustMatch(o, n upgradeStep, pos ast.Pos) error {
	if o.class != n.class {
		return notUpgradeable(pos, "Plan step of type %s must have matching class. Values differ: %s vs. %s", o.class, o.class, n.class)
	}
	for i, p := range o.props {
		if q := n.props[i]; p.value != q.value {
			return notUpgradeable(pos, "Plan step of type %s must have matching %s. Values differ: %s vs. %s", o.class, p.name, p.value, q.value)
		}
	}
	return nil
}

func notUpgradeable(pos ast.Pos, f string, args ...any) error {
	return sqlerr.New(sqlerr.Semantic, pos, "Query is not upgradeable. "+f, args...)
}

func notYetSupported(s upgradeStep, pos ast.Pos) error {
	return sqlerr.New(sqlerr.Semantic, pos, "Upgrades not yet supported for %s", s.class)
}

// passiveChanges describes how the WHERE and HAVING filters and the
// projection differ between the plans.
func passiveChanges(old, next Node) []string {
	var out []string
	of, nf := filterTexts(old), filterTexts(next)
	for i := range of {
		switch o, n := of[i], nf[i]; {
		case o == n:
		case o == "":
			out = append(out, fmt.Sprintf("%s added: %s", filterNames[i], n))
		case n == "":
			out = append(out, fmt.Sprintf("%s removed: %s", filterNames[i], o))
		default:
			out = append(out, fmt.Sprintf("%s changed: %s → %s", filterNames[i], o, n))
		}
	}
	if op, np := projectText(old), projectText(next); op != np {
		out = append(out, fmt.Sprintf("projection changed: %s → %s", op, np))
	}
	return out
}

var filterNames = [2]string{"WHERE", "HAVING"}

// filterTexts are a plan's WHERE and HAVING conditions ("" when absent):
// a filter below an aggregation is its WHERE, one above its HAVING.
func filterTexts(root Node) [2]string {
	var out [2]string
	above := true
	for n := root; n != nil; {
		switch x := n.(type) {
		case *Aggregate:
			above = false
		case *Filter:
			if above && hasAggregate(x.Input) {
				out[1] = ast.FormatExpr(x.Cond)
			} else {
				out[0] = ast.FormatExpr(x.Cond)
			}
		}
		in := n.Inputs()
		if len(in) != 1 {
			break
		}
		n = in[0]
	}
	return out
}

func hasAggregate(n Node) bool {
	for ; n != nil; n = firstInput(n) {
		if _, ok := n.(*Aggregate); ok {
			return true
		}
	}
	return false
}

func firstInput(n Node) Node {
	if in := n.Inputs(); len(in) == 1 {
		return in[0]
	}
	return nil
}

func projectText(root Node) string {
	for n := root; n != nil; n = firstInput(n) {
		if p, ok := n.(*Project); ok {
			parts := make([]string, len(p.Columns))
			for i, c := range p.Columns {
				parts[i] = ast.FormatExpr(c.Expr) + " AS " + c.Name
			}
			return strings.Join(parts, ", ")
		}
	}
	return ""
}
