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
	"github.com/sqlstream/sqlstream/state"
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
	if n := counts.Written(topo.SinkTopic); n != 2 {
		t.Errorf("written to %s: %d, want the sink's 2", topo.SinkTopic, n)
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
	// The output is the sink topic's sink alone, not the repartition's.
	counted, err := topo.NewTask(0, &TaskEnv{Emit: &dropEmitter{}, Log: &logRecorder{}, Counts: counts})
	if err != nil {
		t.Fatal(err)
	}
	if err := counted.Process(&InRecord{Topic: "s", Key: []byte("x"), Value: []byte(`{"A":1}`)}); err != nil {
		t.Fatal(err)
	}
	if n := counts.Written(topo.SinkTopic); n != 0 {
		t.Errorf("written to %s before sub-topology 1 ran: %d, want 0 (the repartition sink is not the output)", topo.SinkTopic, n)
	}
	var nilCounts *NodeCounts
	if nilCounts.Written(topo.SinkTopic) != 0 {
		t.Error("nil counts wrote something")
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

// routedEmitter hands the records a query's tasks emit to its internal
// topics (repartition, foreign-key registration and response) back to
// the task reading them, until none is left; sink records are dropped.
type routedEmitter struct{ queued []*OutRecord }

func (r *routedEmitter) Emit(rec *OutRecord) { r.queued = append(r.queued, rec) }

// globalMap gives a task the query's global stores.
type globalMap map[string]Store

func (g globalMap) Global(name string) (Store, error) {
	if s, ok := g[name]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("no global store %s", name)
}

// TestNodeCountsOfJoins: after records flow through each kind of join,
// every node the topology describes (the sides' materializations, the
// join nodes, a foreign-key join's subscription processor and internal
// sinks, a nested join's nodes, a re-keyed side's repartition) has a
// count, and the counts name exactly the described nodes.
func TestNodeCountsOfJoins(t *testing.T) {
	const sources = `
CREATE STREAM orders (id INT KEY, cid INT, amount INT) WITH (KAFKA_TOPIC='orders', KEY_FORMAT='JSON', VALUE_FORMAT='JSON', PARTITIONS=1);
CREATE STREAM shipments (id INT KEY, carrier VARCHAR) WITH (KAFKA_TOPIC='shipments', KEY_FORMAT='JSON', VALUE_FORMAT='JSON', PARTITIONS=1);
CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR) WITH (KAFKA_TOPIC='customers', KEY_FORMAT='JSON', VALUE_FORMAT='JSON', PARTITIONS=1);
CREATE TABLE accounts (id INT PRIMARY KEY, balance INT) WITH (KAFKA_TOPIC='accounts', KEY_FORMAT='JSON', VALUE_FORMAT='JSON', PARTITIONS=1);
CREATE TABLE owners (id INT PRIMARY KEY, cid INT) WITH (KAFKA_TOPIC='owners', KEY_FORMAT='JSON', VALUE_FORMAT='JSON', PARTITIONS=1);
CREATE GLOBAL TABLE tiers (rank INT PRIMARY KEY, label VARCHAR) WITH (KAFKA_TOPIC='tiers', KEY_FORMAT='JSON', VALUE_FORMAT='JSON', PARTITIONS=1);
`
	// the tables' rows first, then the streams' (later), so each joins
	records := []*InRecord{
		{Topic: "customers", Key: []byte("1"), Value: []byte(`{"NAME":"ada"}`), Timestamp: 1000},
		{Topic: "accounts", Key: []byte("1"), Value: []byte(`{"BALANCE":5}`), Timestamp: 1000},
		{Topic: "owners", Key: []byte("7"), Value: []byte(`{"CID":1}`), Timestamp: 1000},
		{Topic: "tiers", Key: []byte("3"), Value: []byte(`{"LABEL":"gold"}`), Timestamp: 1000},
		{Topic: "orders", Key: []byte("1"), Value: []byte(`{"CID":1,"AMOUNT":3}`), Timestamp: 2000},
		{Topic: "shipments", Key: []byte("1"), Value: []byte(`{"CARRIER":"ups"}`), Timestamp: 3000},
	}
	for _, c := range []struct{ name, sql string }{
		{"stream-table", "CREATE STREAM e AS SELECT o.id, c.name FROM orders o JOIN customers c ON o.id = c.id;"},
		{"table-table", "CREATE TABLE b AS SELECT c.id, name, balance FROM customers c JOIN accounts a ON c.id = a.id;"},
		{"stream-stream", "CREATE STREAM s AS SELECT o.id, carrier FROM orders o LEFT JOIN shipments s WITHIN 1 HOUR GRACE PERIOD 1 MINUTE ON o.id = s.id;"},
		{"foreign-key", "CREATE TABLE f AS SELECT w.id, c.name FROM owners w JOIN customers c ON w.cid = c.id;"},
		{"as-of", "CREATE STREAM a AS SELECT o.id, c.name FROM orders o JOIN customers FOR SYSTEM_TIME AS OF o.ROWTIME AS c ON o.id = c.id;"},
		{"n-way", "CREATE STREAM w AS SELECT o.id, c.name, a.balance FROM orders o JOIN customers c ON o.id = c.id JOIN accounts a ON o.id = a.id;"},
		{"re-keyed", "CREATE STREAM r AS SELECT o.cid, c.name FROM orders o JOIN customers c ON o.cid = c.id;"},
		{"global", "CREATE STREAM g AS SELECT o.id, t.label FROM orders o JOIN tiers t ON o.amount = t.rank;"},
	} {
		t.Run(c.name, func(t *testing.T) {
			topo := buildWith(t, sources, c.sql)
			db, err := state.OpenMem()
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			stores, globals, loaders := dbStores{db}, globalMap{}, map[string]*GlobalLoader{}
			log := &logRecorder{}
			for _, g := range topo.Globals {
				s, err := stores.Store(g.Name)
				if err != nil {
					t.Fatal(err)
				}
				if loaders[g.Topic], err = g.NewLoader(s, log); err != nil {
					t.Fatal(err)
				}
				globals[g.Name] = s
			}
			counts, emit := topo.NewNodeCounts(), &routedEmitter{}
			readers := map[string]*Task{}
			for i, st := range topo.SubTopologies {
				task, err := topo.NewTask(i, &TaskEnv{Emit: emit, Log: log, Stores: stores, Globals: globals, Counts: counts})
				if err != nil {
					t.Fatal(err)
				}
				for _, topic := range st.Topics {
					readers[topic] = task
				}
			}
			process := func(r *InRecord) {
				if l := loaders[r.Topic]; l != nil {
					if err := l.Load(r); err != nil {
						t.Fatal(err)
					}
				}
				if task := readers[r.Topic]; task != nil {
					if err := task.Process(r); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, r := range records {
				process(r)
				for len(emit.queued) > 0 {
					out := emit.queued[0]
					emit.queued = emit.queued[1:]
					process(&InRecord{Topic: out.Topic, Key: out.Key, Value: out.Value, Timestamp: out.Timestamp})
				}
			}
			if len(log.entries) > 0 {
				t.Fatalf("processing log: %s", log.entries[0].Message)
			}
			got := map[string]int64{}
			for _, n := range counts.Snapshot() {
				got[fmt.Sprintf("%d/%s", n.SubTopology, n.Node)] = n.Records
			}
			described, desc := 0, topo.Describe()
			for i, st := range topo.SubTopologies {
				for _, n := range st.Nodes {
					described++
					if !strings.Contains(desc, " "+n.Name+" (") {
						t.Errorf("node %s is not in the description", n.Name)
					}
					if k := fmt.Sprintf("%d/%s", i, n.Name); got[k] == 0 {
						t.Errorf("node %s has no count (counts %v)", k, got)
					}
				}
			}
			if len(got) != described {
				t.Errorf("counts name %d nodes %v, the topology describes %d:\n%s", len(got), got, described, desc)
			}
		})
	}
}

// buildWith builds the topology of a CREATE … AS SELECT over sources
// (CREATE statements).
func buildWith(t *testing.T, sources, sql string) *Topology {
	t.Helper()
	p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{})
	stmts, err := parser.Parse(sources + sql)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range stmts[:len(stmts)-1] {
		src, err := p.CreateSource(st.(*ast.CreateSource))
		if err != nil {
			t.Fatal(err)
		}
		p.Catalog.Put(src)
	}
	plan, err := p.PlanCreateAs(stmts[len(stmts)-1].(*ast.CreateAsSelect))
	if err != nil {
		t.Fatal(err)
	}
	topo, err := Build(plan, Options{AppID: "app"})
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// TestNodeCountsContinueFrom: an upgrade's new plan counts on from the
// old plan's nodes that play the same part (same sub-topology, name,
// kind and topic); the filter the new plan adds counts from 0 and is
// reported as added.
func TestNodeCountsContinueFrom(t *testing.T) {
	old := csas(t, "CREATE STREAM out AS SELECT k, a * 2 AS b FROM s;").NewNodeCounts()
	for j := range old.subs[0] {
		old.subs[0][j].n.Store(int64(10 + j))
	}
	before := map[string]int64{}
	for _, n := range old.Snapshot() {
		before[n.Node] = n.Records
	}
	next := csas(t, "CREATE STREAM out AS SELECT k, a * 2 AS b FROM s WHERE a > 1;").NewNodeCounts()
	added := next.ContinueFrom(old)
	if strings.Join(added, " ") != "0/WhereFilter" {
		t.Errorf("added %q, want the filter alone", added)
	}
	for _, n := range next.Snapshot() {
		want, ok := before[n.Node]
		if !ok {
			want = 0
		}
		if n.Records != want {
			t.Errorf("%s counts from %d, want %d", n.Node, n.Records, want)
		}
	}
	if len(before) < 3 {
		t.Fatalf("the old plan has nodes %v", before)
	}
}
