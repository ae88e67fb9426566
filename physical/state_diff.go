package physical

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// StateDiff is what an upgrade of a query from one topology to another
// does to its state (CompareState): every store and internal topic of
// either, kept, added or dropped, and each kept aggregate store's
// accumulators.
type StateDiff struct {
	Stores []StoreChange
	Topics []TopicChange
}

// Change says what an upgrade does to a store, topic or accumulator.
type Change string

// Changes.
const (
	Kept    Change = "kept"
	Added   Change = "added"
	Dropped Change = "dropped"
)

// StoreChange is one store's fate; Accumulators are set for a kept
// aggregate store.
type StoreChange struct {
	Store        string
	Change       Change
	Accumulators []AccumulatorChange
}

// AccumulatorChange is one aggregate's accumulator in a kept store: kept
// (every group keeps its value), added (every existing group starts it
// from the aggregate's initial value: it counts only records after the
// upgrade) or dropped (no longer read; a group's next update leaves it
// out).
type AccumulatorChange struct {
	Call   string // the call as written, e.g. SUM(X)
	Column string // its column in the store's values
	Change Change
}

// TopicChange is one internal topic's fate.
type TopicChange struct {
	Topic  string
	Change Change
}

// StateRefusal is why an upgrade cannot keep a query's state, and what
// the user can do instead. It is the user's change at fault.
type StateRefusal struct {
	Reason  string
	Instead string
}

func (e *StateRefusal) Error() string {
	return "Cannot upgrade the query in place keeping its state: " + e.Reason + ". " + e.Instead
}

// newQueryInstead is the advice when state cannot be carried over.
const newQueryInstead = "Create a new query (a new sink) instead, or drop this one and create it again to recompute its state from the sources."

// CompareState compares the state of a query's current topology with
// that of the topology an upgrade would run on the same stores and
// internal topics (the same application id). It refuses, with a
// *StateRefusal, a change whose stored state the new topology cannot
// read or would compute wrongly: a changed GROUP BY key, window, EMIT
// mode or input kind of an aggregation, a changed join (shape, type,
// sides, keys, window), an aggregate output column computed by another
// call, accumulators added to a table aggregation (retractions would
// subtract rows they never added) or to a sliding window (its raw rows
// hold the old calls' arguments), or accumulators added or dropped in a
// store read by position (DELIMITED, KAFKA, PROTOBUF_NOSR, stores of
// queries recorded before accumulators were named, and the EMIT FINAL
// buffer's or sliding window's raw rows of queries recorded before
// those were named), an aggregate added to a JSON_SR store or a PROTOBUF
// field given another type (an accumulator's, a buffered result's or a
// raw argument's: the store's subject would refuse the new schema), or
// the columns of a table aggregation's stored input rows changed (a
// replaced source) where that store reads them by position. Changes above the
// state (projection, HAVING, a filter before the aggregation, a join's
// projection or residual condition) keep it.
func CompareState(old, next *Topology) (StateDiff, error) {
	o, n := stateOf(old), stateOf(next)
	if err := compareJoins(o.joins, n.joins); err != nil {
		return StateDiff{}, err
	}
	accs, err := compareAggregates(o, n)
	if err != nil {
		return StateDiff{}, err
	}
	d := StateDiff{Topics: diffNames(internalNames(old), internalNames(next), func(s string, c Change) TopicChange {
		return TopicChange{Topic: s, Change: c}
	})}
	d.Stores = diffNames(topologyStores(old), topologyStores(next), func(s string, c Change) StoreChange {
		sc := StoreChange{Store: s, Change: c}
		if s == aggregateStore && c == Kept {
			sc.Accumulators = accs
		}
		return sc
	})
	if err := refuseNewState(d); err != nil {
		return StateDiff{}, err
	}
	return d, nil
}

// queryState is what a topology's stored state depends on.
type queryState struct {
	agg        *planner.Aggregate
	outputs    map[string]string // output column → accumulator column it shows
	joins      []string          // each join step's shape
	positional bool              // aggregate store values read by position
	// byPosition names what reads by position when positional holds for
	// another reason than the source's format ("" otherwise).
	byPosition string
	source     string // the first source's value format
	// rowsByName: a table aggregation's input-row store reads its rows
	// by column name (JSON, as legacy stores hold them, AVRO, JSON_SR).
	rowsByName bool
}

func stateOf(t *Topology) queryState {
	s := queryState{outputs: map[string]string{}}
	if t.plan == nil {
		return s
	}
	src := firstSource(t.plan)
	s.source = src.ValueFormat.Name
	s.rowsByName = t.formats.legacyStoreKeys || !positionalFormat(s.source) && s.source != format.Protobuf
	s.positional = t.formats.legacyStore || positionalFormat(src.ValueFormat.Name)
	if t.formats.legacyStore && !s.positional {
		s.byPosition = "the store was written before accumulators were named (its values are read by position)"
	}
	chain, bottom, err := linearize(t.plan.Root)
	if err != nil {
		return s
	}
	if j, ok := bottom.(*planner.Join); ok {
		s.joins = joinShapes(j)
	}
	for i, n := range chain {
		if a, ok := n.(*planner.Aggregate); ok {
			s.agg = a
			s.outputs = outputAccumulators(a, chain[i+1:])
			s.legacyRows(t.formats, a)
		}
	}
	return s
}

// legacyRows marks as read by position the stores of a whose rows
// legacy queries wrote by position (Options.LegacyStoreKeysJSON): the
// EMIT FINAL buffer's whole result rows, a sliding window's raw
// arguments.
func (s *queryState) legacyRows(f internalFormats, a *planner.Aggregate) {
	if !f.legacyStoreKeys || s.positional {
		return
	}
	switch {
	case a.Final:
		s.positional = true
		s.byPosition = "the EMIT FINAL buffer was written before its columns were named (its results are read by position)"
	case a.Window != nil && a.Window.Kind == ast.Sliding:
		s.positional = true
		s.byPosition = "the sliding window's raw rows were written before their columns were named (their arguments are read by position)"
	}
}

// outputAccumulators maps each output column that shows an aggregate's
// result as is to that aggregate's accumulator column.
func outputAccumulators(a *planner.Aggregate, above []planner.Node) map[string]string {
	byColumn := map[string]string{}
	for _, c := range accumulatorsOf(a) {
		byColumn[c.result] = c.column
	}
	out := map[string]string{}
	for _, n := range above {
		p, ok := n.(*planner.Project)
		if !ok {
			continue
		}
		for _, c := range p.Columns {
			if r, ok := c.Expr.(*ast.ColumnRef); ok && byColumn[r.Name] != "" {
				out[c.Name] = byColumn[r.Name]
			}
		}
		break
	}
	return out
}

// accumulator is one aggregate call of a plan: its text, its store
// column and the aggregate's output column.
type accumulator struct {
	call, column, result, typ string
}

func accumulatorsOf(a *planner.Aggregate) []accumulator {
	cols := accumulatorColumns(a, false)
	out := make([]accumulator, len(a.Calls))
	for i, c := range a.Calls {
		out[i] = accumulator{call: ast.FormatExpr(c.Call), column: cols[i].Name, result: c.Column, typ: cols[i].Type.String()}
	}
	return out
}

// joinShapes describes each join step of a join tree (nested steps
// first): what its stores and repartition topics depend on, not its
// projection or residual condition.
func joinShapes(j *planner.Join) []string {
	var out []string
	if nested, ok := j.Left.Node.(*planner.Join); ok {
		out = joinShapes(nested)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s JOIN", j.Shape, joinTypes[j.Type])
	for _, side := range []planner.JoinInput{j.Left, j.Right} {
		fmt.Fprintf(&b, " %s", sideShape(side))
	}
	eqs := make([]string, len(j.Equalities))
	for i, e := range j.Equalities {
		eqs[i] = ast.FormatExpr(e)
	}
	fmt.Fprintf(&b, " ON %s", strings.Join(eqs, " AND "))
	if w := j.Within; w != nil {
		fmt.Fprintf(&b, " WITHIN (%d ms, %d ms) GRACE %d ms", w.Before, w.After, w.Grace)
	}
	if a := j.AsOf; a != nil {
		fmt.Fprintf(&b, " AS OF %s GRACE %d ms", ast.FormatExpr(a.Time), a.Grace)
	}
	return append(out, b.String())
}

// sideShape is one join side: its source, how it is keyed and re-keyed.
func sideShape(s planner.JoinInput) string {
	name := "(nested join)"
	if s.Source != nil {
		name = s.Source.Name
		if s.Source.Topic != "" {
			name += " [" + s.Source.Topic + "]"
		}
	}
	var keys []string
	for _, i := range s.Keys {
		if sch := s.Node.Schema(); i < len(sch.Columns) {
			keys = append(keys, sch.Columns[i].Name+" "+sch.Columns[i].Type.String())
		}
	}
	for _, e := range s.RekeyExprs {
		keys = append(keys, "rekey "+ast.FormatExpr(e))
	}
	for _, e := range []ast.Expr{s.ForeignKeyExpr, s.LookupExpr} {
		if e != nil {
			keys = append(keys, "by "+ast.FormatExpr(e))
		}
	}
	if s.Reformat {
		keys = append(keys, "reformatted")
	}
	return fmt.Sprintf("%s AS %s keyed (%s)", name, s.Alias, strings.Join(keys, ", "))
}

// compareJoins refuses any change to a join's shape.
func compareJoins(old, next []string) error {
	if slices.Equal(old, next) {
		return nil
	}
	return &StateRefusal{
		Reason:  fmt.Sprintf("the join changes from %s to %s: its stores hold each side's rows by the old join's keys and windows", shapeList(old), shapeList(next)),
		Instead: newQueryInstead,
	}
}

func shapeList(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, "; ")
}

// compareAggregates refuses changes to what an aggregate store is keyed
// by and to accumulators it cannot carry over, and lists the
// accumulators of a kept store.
func compareAggregates(o, n queryState) ([]AccumulatorChange, error) {
	switch {
	case o.agg == nil && n.agg == nil:
		return nil, nil
	case o.agg == nil || n.agg == nil:
		return nil, &StateRefusal{Reason: "the query " + startsOrStops(o.agg == nil) + " aggregating", Instead: newQueryInstead}
	}
	if err := compareGrouping(o.agg, n.agg); err != nil {
		return nil, err
	}
	if err := compareOutputs(o.outputs, n.outputs); err != nil {
		return nil, err
	}
	if err := compareInputRows(o, n); err != nil {
		return nil, err
	}
	accs := diffAccumulators(accumulatorsOf(o.agg), accumulatorsOf(n.agg))
	return accs, refuseAccumulators(o, n, accs)
}

// compareInputRows refuses a change of the columns of the rows a table
// aggregation keeps in its input-row store (a source replaced with more
// columns) where the store reads them by position: DELIMITED, KAFKA and
// PROTOBUF_NOSR rows, PROTOBUF rows but for columns added at the end (a
// field keeps its number). Rows read by name take the new columns as
// NULL (a registry format's subject checks the new schema).
func compareInputRows(o, n queryState) error {
	if !o.agg.OnTable || o.rowsByName {
		return nil
	}
	was, is := fieldNames(inputRowColumns(o.agg.Input.Schema())), fieldNames(inputRowColumns(n.agg.Input.Schema()))
	if slices.Equal(was, is) || o.source == format.Protobuf && len(was) < len(is) && slices.Equal(was, is[:len(was)]) {
		return nil
	}
	return &StateRefusal{
		Reason: fmt.Sprintf("the table rows the aggregation keeps to retract an update change from (%s) to (%s) and the %s format reads them by position",
			strings.Join(was, ", "), strings.Join(is, ", "), o.source),
		Instead: newQueryInstead,
	}
}

// fieldNames are cols as name and type.
func fieldNames(cols []types.Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name + " " + c.Type.String()
	}
	return out
}

func startsOrStops(starts bool) string {
	if starts {
		return "starts"
	}
	return "stops"
}

// compareGrouping refuses a change of the group key, the window, EMIT
// mode or input kind.
func compareGrouping(o, n *planner.Aggregate) error {
	if ok, nk := groupKey(o), groupKey(n); ok != nk {
		return &StateRefusal{
			Reason:  fmt.Sprintf("the GROUP BY key changes from (%s) to (%s): every group's state is kept under its key", ok, nk),
			Instead: newQueryInstead,
		}
	}
	if o.Final != n.Final {
		return &StateRefusal{Reason: "EMIT CHANGES and EMIT FINAL keep different state (FINAL buffers results until their window closes)", Instead: newQueryInstead}
	}
	if ow, nw := windowText(o.Window), windowText(n.Window); ow != nw {
		return &StateRefusal{
			Reason:  fmt.Sprintf("the window changes from %s to %s: the store holds the old windows' accumulators", ow, nw),
			Instead: newQueryInstead,
		}
	}
	if o.OnTable != n.OnTable {
		return &StateRefusal{Reason: "the aggregation's input changes between a stream and a table", Instead: newQueryInstead}
	}
	return nil
}

// groupKey is an aggregation's GROUP BY expressions and their types.
func groupKey(a *planner.Aggregate) string {
	parts := make([]string, len(a.GroupBy))
	keys := a.Schema().Keys()
	for i, g := range a.GroupBy {
		parts[i] = ast.FormatExpr(g)
		if i < len(keys) {
			parts[i] += " " + keys[i].Type.String()
		}
	}
	return strings.Join(parts, ", ")
}

func windowText(w *ast.WindowExpr) string {
	if w == nil {
		return "no window"
	}
	return fmt.Sprintf("%s (size %d ms, advance %d ms, grace %d ms, retention %d ms)", windowKinds[w.Kind], w.Size, w.Advance, w.Grace, w.Retention)
}

// compareOutputs refuses an output column that showed one aggregate and
// now shows another (a changed argument): the user would read the new
// aggregate's fresh value as the continuation of the old one.
func compareOutputs(o, n map[string]string) error {
	names := slices.Sorted(maps.Keys(n))
	for _, name := range names {
		if was, ok := o[name]; ok && was != n[name] {
			return &StateRefusal{
				Reason:  fmt.Sprintf("the aggregate column %s is computed by another call (another argument or argument type): its accumulator cannot be carried over", name),
				Instead: "Give the new aggregate a new column name (it starts from its initial value and counts the records after the upgrade), or " + strings.ToLower(newQueryInstead[:1]) + newQueryInstead[1:],
			}
		}
	}
	return nil
}

// diffAccumulators lists the new topology's accumulators (kept or
// added), then the old one's dropped ones.
func diffAccumulators(o, n []accumulator) []AccumulatorChange {
	had := map[string]bool{}
	for _, a := range o {
		had[a.column] = true
	}
	has := map[string]bool{}
	var out []AccumulatorChange
	for _, a := range n {
		has[a.column] = true
		c := Added
		if had[a.column] {
			c = Kept
		}
		out = append(out, AccumulatorChange{Call: a.call, Column: a.column, Change: c})
	}
	for _, a := range o {
		if !has[a.column] {
			out = append(out, AccumulatorChange{Call: a.call, Column: a.column, Change: Dropped})
		}
	}
	return out
}

// refuseAccumulators refuses accumulators added or dropped where the
// store cannot carry them.
func refuseAccumulators(o, n queryState, accs []AccumulatorChange) error {
	added := slices.ContainsFunc(accs, func(a AccumulatorChange) bool { return a.Change == Added })
	dropped := slices.ContainsFunc(accs, func(a AccumulatorChange) bool { return a.Change == Dropped })
	if !added && !dropped && !o.positional {
		return nil
	}
	switch {
	case o.positional && (added || dropped || !sameOrder(o.agg, n.agg)):
		what := "the " + o.source + " format reads the store's values by position"
		if o.byPosition != "" {
			what = o.byPosition
		}
		return &StateRefusal{Reason: "the aggregates change and " + what, Instead: newQueryInstead}
	case o.source == format.Protobuf && !sameFieldTypes(o.agg, n.agg):
		return &StateRefusal{
			Reason:  "the store's PROTOBUF fields are numbered by the aggregates' positions and an aggregate of another type would take a field's number (its subject refuses a changed field type)",
			Instead: "Keep the aggregates of the old query in their order and add new ones at the end, or " + strings.ToLower(newQueryInstead[:1]) + newQueryInstead[1:],
		}
	case added && n.agg.OnTable:
		return &StateRefusal{
			Reason:  "an aggregate is added to an aggregation of a table: its accumulator would start from its initial value and later retract rows it never added",
			Instead: newQueryInstead,
		}
	case added && n.agg.Window != nil && n.agg.Window.Kind == ast.Sliding:
		return &StateRefusal{Reason: "an aggregate is added to a sliding-window aggregation, whose stored rows hold only the old aggregates' arguments", Instead: newQueryInstead}
	}
	return nil
}

// sameFieldTypes reports whether the fields both aggregations' stores
// have at each position are of one type (a protobuf field keeps its
// number's type): the accumulators, the EMIT FINAL buffer's results and
// a sliding window's raw arguments.
func sameFieldTypes(o, n *planner.Aggregate) bool {
	same := func(a, b []string) bool {
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	}
	ok := same(fieldTypes(accumulatorColumns(o, false)), fieldTypes(accumulatorColumns(n, false)))
	if o.Final { // the window and EMIT mode are the same in both (compareGrouping)
		ok = ok && same(fieldTypes(bufferColumns(o, false)), fieldTypes(bufferColumns(n, false)))
	}
	if o.Window != nil && o.Window.Kind == ast.Sliding {
		ok = ok && same(fieldTypes(rawColumns(o, false)), fieldTypes(rawColumns(n, false)))
	}
	return ok
}

func fieldTypes(cols []types.Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Type.String()
	}
	return out
}

// sameOrder reports whether two aggregations have the same calls in the
// same order (a positional store reads them unchanged).
func sameOrder(o, n *planner.Aggregate) bool {
	a, b := accumulatorsOf(o), accumulatorsOf(n)
	return slices.EqualFunc(a, b, func(x, y accumulator) bool { return x.column == y.column })
}

// refuseNewState refuses a store added or dropped next to kept state:
// the new store would start empty while the old ones go on.
func refuseNewState(d StateDiff) error {
	for _, s := range d.Stores {
		if s.Change != Kept {
			return &StateRefusal{
				Reason:  fmt.Sprintf("the store %s is %s: the query's stateful operations change", s.Store, s.Change),
				Instead: newQueryInstead,
			}
		}
	}
	return nil
}

func topologyStores(t *Topology) []string {
	var out []string
	for _, st := range t.SubTopologies {
		for _, s := range st.Stores {
			out = append(out, s.Name)
		}
	}
	return out
}

func internalNames(t *Topology) []string {
	out := make([]string, len(t.Internal))
	for i, it := range t.Internal {
		out[i] = it.Name
	}
	return out
}

// diffNames lists next's names (kept or added) then old's dropped ones.
func diffNames[T any](old, next []string, mk func(string, Change) T) []T {
	var out []T
	for _, s := range next {
		c := Added
		if slices.Contains(old, s) {
			c = Kept
		}
		out = append(out, mk(s, c))
	}
	for _, s := range old {
		if !slices.Contains(next, s) {
			out = append(out, mk(s, Dropped))
		}
	}
	return out
}

// String renders the diff as EXPLAIN would print it.
func (d StateDiff) String() string {
	var b strings.Builder
	for _, s := range d.Stores {
		fmt.Fprintf(&b, "store %s: %s\n", s.Store, s.Change)
		for _, a := range s.Accumulators {
			fmt.Fprintf(&b, "  %s (%s): %s\n", a.Call, a.Column, accumulatorNote(a.Change))
		}
	}
	for _, t := range d.Topics {
		fmt.Fprintf(&b, "topic %s: %s\n", t.Topic, t.Change)
	}
	return b.String()
}

// Accumulators renders the kept stores' accumulators only, a line each
// (EXPLAIN CREATE OR REPLACE, beside its lists of stores and topics).
func (d StateDiff) Accumulators() string {
	var b strings.Builder
	for _, s := range d.Stores {
		for _, a := range s.Accumulators {
			fmt.Fprintf(&b, "aggregate %s (%s): %s\n", a.Call, a.Column, accumulatorNote(a.Change))
		}
	}
	return b.String()
}

func accumulatorNote(c Change) string {
	switch c {
	case Added:
		return "added, starts from its initial value for existing groups (counts only records after the upgrade)"
	case Dropped:
		return "dropped"
	}
	return "kept"
}

var windowKinds = [...]string{ast.Tumbling: "TUMBLING", ast.Hopping: "HOPPING", ast.Session: "SESSION", ast.Sliding: "SLIDING"}

var joinTypes = [...]string{ast.InnerJoin: "INNER", ast.LeftJoin: "LEFT", ast.RightJoin: "RIGHT", ast.FullJoin: "FULL"}
