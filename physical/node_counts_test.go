package physical

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/types"
)

type dropEmitter struct{ n int }

func (d *dropEmitter) Emit(*OutRecord) { d.n++ }

// csas builds the topology of a CREATE … AS SELECT over stream s (k key,
// a INT).
func csas(t testing.TB, sql string) *Topology {
	t.Helper()
	p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{})
	stmts, err := parser.Parse("CREATE STREAM s (k STRING KEY, a INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);" + sql)
	if err != nil {
		t.Fatal(err)
	}
	src, err := p.CreateSource(stmts[0].(*ast.CreateSource))
	if err != nil {
		t.Fatal(err)
	}
	p.Catalog.Put(src)
	plan, err := p.PlanCreateAs(stmts[1].(*ast.CreateAsSelect))
	if err != nil {
		t.Fatal(err)
	}
	topo, err := Build(plan, Options{AppID: "app"})
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// TestNodeCountsCountEachNode: every node of a task counts the records it
// received, whatever task of the query it ran in: the source all four
// records (one not JSON, which goes to the processing log), the filter
// the three it decoded, the projection and the sink the two it passed.
func TestNodeCountsCountEachNode(t *testing.T) {
	topo := csas(t, "CREATE STREAM out AS SELECT k, a * 2 AS b FROM s WHERE a > 1;")
	counts := topo.NewNodeCounts()
	emit := &dropEmitter{}
	for p, values := range [][]string{{`{"A":1}`, `{"A":2}`}, {`{"A":3}`, `not json`}} {
		task, err := topo.NewTask(0, &TaskEnv{Partition: int32(p), Emit: emit, Log: &logRecorder{}, Counts: counts})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range values {
			if err := task.Process(&InRecord{Topic: "s", Partition: int32(p), Offset: int64(i), Key: []byte("x"), Value: []byte(v)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	var got []string
	for _, c := range counts.Snapshot() {
		got = append(got, fmt.Sprintf("%d/%s=%d", c.SubTopology, c.Node, c.Records))
	}
	if want := "0/Source-S=4 0/WhereFilter=3 0/Project=2 0/Sink-OUT=2"; strings.Join(got, " ") != want || emit.n != 2 {
		t.Errorf("counts %s (emitted %d), want %s (emitted 2)", strings.Join(got, " "), emit.n, want)
	}
}

// TestNodeCountsOfAnAggregation: both sub-topologies of a GROUP BY count,
// sub-topology 1's repartition source included; a task without counts
// (TaskEnv.Counts nil) counts nothing.
func TestNodeCountsOfAnAggregation(t *testing.T) {
	topo := csas(t, "CREATE TABLE n AS SELECT a, COUNT(*) AS c FROM s GROUP BY a;")
	counts := topo.NewNodeCounts()
	var names []string
	for _, c := range counts.Snapshot() {
		names = append(names, fmt.Sprintf("%d/%s", c.SubTopology, c.Node))
	}
	want := "0/Source-S 0/Aggregate-GroupBy 0/Aggregate-GroupBy-repartition-sink 1/Aggregate-GroupBy-repartition-source 1/Aggregate-Aggregate 1/Project 1/Sink-N"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("counted nodes %s\nwant %s", got, want)
	}
	task, err := topo.NewTask(0, &TaskEnv{Emit: &dropEmitter{}, Log: &logRecorder{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := task.Process(&InRecord{Topic: "s", Key: []byte("x"), Value: []byte(`{"A":1}`)}); err != nil {
		t.Fatal(err)
	}
	for _, c := range counts.Snapshot() {
		if c.Records != 0 {
			t.Errorf("a task without counts counted %s: %d", c.Node, c.Records)
		}
	}
}

// BenchmarkNodeCounts: a stateless task (source, filter, projection,
// sink) with and without node counts, per record.
func BenchmarkNodeCounts(b *testing.B) {
	topo := csas(b, "CREATE STREAM out AS SELECT k, a * 2 AS b FROM s WHERE a > 1;")
	for _, counted := range []bool{false, true} {
		b.Run(fmt.Sprintf("counted=%v", counted), func(b *testing.B) {
			env := &TaskEnv{Emit: &dropEmitter{}, Log: &logRecorder{}}
			if counted {
				env.Counts = topo.NewNodeCounts()
			}
			task, err := topo.NewTask(0, env)
			if err != nil {
				b.Fatal(err)
			}
			rec := &InRecord{Topic: "s", Key: []byte("x"), Value: []byte(`{"A":2}`)}
			b.ReportAllocs()
			for b.Loop() {
				if err := task.Process(rec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type nopProcessor struct{}

func (nopProcessor) Process(*types.Row) error { return nil }

// BenchmarkCountedOp is the cost a counted node adds to each row: the
// wrapper's call and atomic add.
func BenchmarkCountedOp(b *testing.B) {
	var n atomic.Int64
	row := &types.Row{}
	for _, p := range []struct {
		name string
		p    Processor
	}{{"direct", nopProcessor{}}, {"counted", &countedOp{n: &n, next: nopProcessor{}}}} {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				_ = p.p.Process(row)
			}
		})
	}
}
