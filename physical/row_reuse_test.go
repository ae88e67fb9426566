package physical

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/types"
	"github.com/sqlstream/sqlstream/state"
)

// planProject plans query over a stream S (K key, A bigint, V string)
// and returns its projection.
func planProject(t *testing.T, query string) *planner.Project {
	t.Helper()
	return planNode[*planner.Project](t, query)
}

// planNode plans query over the stream S of planProject and returns the
// plan's first node of type N from the root down.
func planNode[N planner.Node](t *testing.T, query string) N {
	t.Helper()
	p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{})
	stmts, err := parser.Parse("CREATE STREAM s (k STRING KEY, a BIGINT, v STRING) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);" + query)
	if err != nil {
		t.Fatal(err)
	}
	src, err := p.CreateSource(stmts[0].(*ast.CreateSource))
	if err != nil {
		t.Fatal(err)
	}
	p.Catalog.Put(src)
	plan, err := p.PlanQuery(stmts[1].(*ast.Query))
	if err != nil {
		t.Fatal(err)
	}
	for n := plan.Root; n != nil; {
		if want, ok := n.(N); ok {
			return want
		}
		in := n.Inputs()
		if len(in) == 0 {
			break
		}
		n = in[0]
	}
	var none N
	t.Fatalf("no %T in the plan of %s", none, query)
	return none
}

// valuesKeeper keeps the Values slice of every row, as an operator that
// keeps a copy of the Row struct does.
type valuesKeeper struct{ kept [][]any }

func (k *valuesKeeper) Process(row *types.Row) error {
	k.kept = append(k.kept, row.Values)
	return nil
}

// recordsEmitter keeps every record's value, as the runtime's emitter
// keeps them until the broker has them.
type recordsEmitter struct{ values [][]byte }

func (e *recordsEmitter) Emit(r *OutRecord) { e.values = append(e.values, r.Value) }

// TestProjectReusesValuesBeforeSink: a projection whose rows go (through
// a node counter) to a sink, which keeps nothing of them, refills one
// Values slice: a record then costs the sink's one buffer and nothing in
// the projection, and every record is still its own row's.
func TestProjectReusesValuesBeforeSink(t *testing.T) {
	pr := planProject(t, "SELECT k, v AS w, a FROM s EMIT CHANGES;")
	s := pr.Schema()
	target := &planner.Source{Topic: "out", KeyFormat: format.Spec{Name: format.Kafka}, ValueFormat: format.Spec{Name: format.JSON}, Schema: s}
	emit := &recordsEmitter{}
	env := &TaskEnv{Emit: emit}
	sink, err := newSinkOp(env, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	var counter countedOp
	counter.n, counter.next = new(atomic.Int64), sink
	op := newProjectOp(env, pr, &sharedExprs{}, false, &counter)
	if !op.vals.reuse {
		t.Fatal("a projection before a sink makes a Values slice per row")
	}
	rows := []*types.Row{
		{Values: []any{"k1", int64(1000), "first"}},
		{Values: []any{"k2", nil, "second"}},
		{Values: []any{"k3", int64(3000), nil}},
	}
	for _, r := range rows {
		if err := op.Process(r); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{`{"W":"first","A":1000}`, `{"W":"second","A":null}`, `{"W":null,"A":3000}`}
	if len(emit.values) != len(want) {
		t.Fatalf("values %q, want %q", emit.values, want)
	}
	for i := range want {
		if string(emit.values[i]) != want[i] {
			t.Errorf("value %d = %s, want %s", i, emit.values[i], want[i])
		}
	}
	allocs := testing.AllocsPerRun(100, func() {
		if err := op.Process(rows[0]); err != nil {
			t.Fatal(err)
		}
	})
	// The sink's buffer is one; the recording emitter's append, amortized,
	// rounds away.
	if allocs > 1 {
		t.Errorf("a projected record costs %.2f allocations, want 1 (the sink's buffer)", allocs)
	}
}

// TestProjectKeepsValuesForKeepers: before an operator that does not say
// it borrows, each row has a Values slice of its own.
func TestProjectKeepsValuesForKeepers(t *testing.T) {
	pr := planProject(t, "SELECT k, v AS w, a FROM s EMIT CHANGES;")
	keep := &valuesKeeper{}
	op := newProjectOp(&TaskEnv{}, pr, &sharedExprs{}, false, keep)
	if op.vals.reuse {
		t.Fatal("a projection before an operator that keeps rows reuses its Values")
	}
	for _, r := range []*types.Row{{Values: []any{"k1", int64(1), "a"}}, {Values: []any{"k2", int64(2), "b"}}} {
		if err := op.Process(r); err != nil {
			t.Fatal(err)
		}
	}
	if len(keep.kept) != 2 || keep.kept[0][1] != "a" || keep.kept[1][1] != "b" {
		t.Errorf("kept rows %v, want [k1 a 1] [k2 b 2]", keep.kept)
	}
}

// TestFlatMapReusesValuesBeforeSink: a flat map before a sink refills one
// Values slice for all the rows of an input row, and the records are
// each their own row's.
func TestFlatMapReusesValuesBeforeSink(t *testing.T) {
	fm := planFlatMap(t, "SELECT k, EXPLODE(a) FROM s EMIT CHANGES;")
	target := &planner.Source{Topic: "out", KeyFormat: format.Spec{Name: format.Kafka}, ValueFormat: format.Spec{Name: format.JSON},
		Schema: fm.Schema()}
	emit := &recordsEmitter{}
	env := &TaskEnv{Emit: emit}
	sink, err := newSinkOp(env, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	op := newFlatMapOp(env, fm, sink)
	if !op.vals.reuse {
		t.Fatal("a flat map before a sink makes a Values slice per row")
	}
	if err := op.Process(&types.Row{Values: []any{"x", []any{int32(1), int32(2)}, nil}}); err != nil {
		t.Fatal(err)
	}
	if len(emit.values) != 2 || string(emit.values[0]) != `{"A":[1,2],"B":null,"KSQL_SYNTH_0":1}` || string(emit.values[1]) != `{"A":[1,2],"B":null,"KSQL_SYNTH_0":2}` {
		t.Errorf("values %q, want two records, KSQL_SYNTH_0 1 then 2", emit.values)
	}
}

// rowsKeeper keeps a copy of every Row struct it is given, Values and
// Old with it, as a push query's queue does.
type rowsKeeper struct{ kept []types.Row }

func (k *rowsKeeper) Process(row *types.Row) error {
	k.kept = append(k.kept, *row)
	return nil
}

// newTestAggregate makes the aggregate step of n before next, its store
// in an in-memory Pebble DB (cached, as the runtime opens it).
func newTestAggregate(t *testing.T, n *planner.Aggregate, next Processor) *aggregateOp {
	t.Helper()
	db, err := state.OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	formats := aggFormats{keys: format.Spec{Name: format.Kafka}, states: stateFormat{spec: format.Spec{Name: format.JSON}}}
	op, err := newAggregateOp(&TaskEnv{Stores: dbStores{db}}, n, aggregateStore, formats, next)
	if err != nil {
		t.Fatal(err)
	}
	return op
}

// TestAggregateKeepsRowsForKeepers: before an operator that does not say
// it borrows, every forwarded row's Values and Old are its own, so rows
// kept across updates of one group (and of others) still say what they
// said when they were forwarded.
func TestAggregateKeepsRowsForKeepers(t *testing.T) {
	n := planNode[*planner.Aggregate](t, "SELECT k, COUNT(a) AS c, SUM(a) AS total FROM s GROUP BY k EMIT CHANGES;")
	keep := &rowsKeeper{}
	op := newTestAggregate(t, n, keep)
	if op.outs.reuse || op.olds.reuse {
		t.Fatal("an aggregate before an operator that keeps rows reuses their Values or Old")
	}
	for _, in := range []struct {
		k string
		a int64
	}{{"k1", 1}, {"k1", 2}, {"k2", 5}, {"k1", 3}, {"k2", 7}} {
		// A prep row: the group key, then COUNT's and SUM's argument.
		if err := op.Process(&types.Row{Values: []any{in.k, in.a, in.a}}); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		"[k1 1 1] old []",
		"[k1 2 3] old [k1 1 1]",
		"[k2 1 5] old []",
		"[k1 3 6] old [k1 2 3]",
		"[k2 2 12] old [k2 1 5]",
	}
	if len(keep.kept) != len(want) {
		t.Fatalf("%d rows forwarded, want %d", len(keep.kept), len(want))
	}
	for i, r := range keep.kept {
		if got := fmt.Sprintf("%v old %v", r.Values, r.Old); got != want[i] {
			t.Errorf("kept row %d = %s, want %s", i, got, want[i])
		}
	}
}

// TestAggregateReusesRowsBeforeBorrower: before a projection, which
// borrows, the aggregate refills one Values and one Old slice.
func TestAggregateReusesRowsBeforeBorrower(t *testing.T) {
	const query = "SELECT k, COUNT(a) AS c FROM s GROUP BY k EMIT CHANGES;"
	keep := &valuesKeeper{}
	pr := newProjectOp(&TaskEnv{}, planNode[*planner.Project](t, query), &sharedExprs{}, false, keep)
	op := newTestAggregate(t, planNode[*planner.Aggregate](t, query), pr)
	if !op.outs.reuse || !op.olds.reuse {
		t.Fatal("an aggregate before a projection makes a Values or Old slice per row")
	}
	for _, k := range []string{"k1", "k1", "k2"} {
		if err := op.Process(&types.Row{Values: []any{k, int64(1)}}); err != nil {
			t.Fatal(err)
		}
	}
	if got := fmt.Sprint(keep.kept); got != "[[k1 1] [k1 2] [k2 1]]" {
		t.Errorf("projected rows %s, want [[k1 1] [k1 2] [k2 1]]", got)
	}
}

// planSource is the stream S of planProject.
func planSource(t *testing.T) *planner.Source {
	t.Helper()
	p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{})
	stmts, err := parser.Parse("CREATE STREAM s (k STRING KEY, a BIGINT, v STRING) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);")
	if err != nil {
		t.Fatal(err)
	}
	src, err := p.CreateSource(stmts[0].(*ast.CreateSource))
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// TestSourceRowsBorrowedOrKept: a source refills one Values slice before
// a step that borrows (the group-by step), and gives a keeper (a join
// side) slices of its own.
func TestSourceRowsBorrowedOrKept(t *testing.T) {
	src := planSource(t)
	recs := []*InRecord{{Topic: "s", Key: []byte("k1"), Value: []byte(`{"A":1,"V":"x"}`)},
		{Topic: "s", Key: []byte("k2"), Value: []byte(`{"A":2}`)}}
	keep := &valuesKeeper{}
	op, err := newSourceOp(&TaskEnv{}, src, keep, nil)
	if err != nil {
		t.Fatal(err)
	}
	if op.vals.reuse {
		t.Fatal("a source before an operator that keeps rows reuses their Values")
	}
	for _, r := range recs {
		if err := op.ProcessRaw(r); err != nil {
			t.Fatal(err)
		}
	}
	if got := fmt.Sprint(keep.kept); got != "[[k1 1 x] [k2 2 <nil>]]" {
		t.Errorf("kept rows %s, want [[k1 1 x] [k2 2 <nil>]]", got)
	}
	group := &groupByOp{}
	if op, err = newSourceOp(&TaskEnv{}, src, group, nil); err != nil {
		t.Fatal(err)
	}
	if !op.vals.reuse {
		t.Error("a source before the group-by step makes a Values slice per row")
	}
}
