package exec

import (
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/types"
	"github.com/sqlstream/sqlstream/state"
)

// globalJoin builds the topology of selectSQL, a query of stream s joined
// with global table regions.
func globalJoin(t *testing.T, selectSQL string) *physical.Topology {
	t.Helper()
	p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{})
	stmts, err := parser.Parse(`CREATE STREAM s (k VARCHAR KEY, rid VARCHAR) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON');
CREATE GLOBAL TABLE regions (rid VARCHAR PRIMARY KEY, name VARCHAR) WITH (KAFKA_TOPIC='regions', VALUE_FORMAT='JSON');
` + selectSQL)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range stmts[:2] {
		src, err := p.CreateSource(st.(*ast.CreateSource))
		if err != nil {
			t.Fatal(err)
		}
		p.Catalog.Put(src)
	}
	var plan *planner.Plan
	switch st := stmts[2].(type) {
	case *ast.CreateAsSelect:
		plan, err = p.PlanCreateAs(st)
	case *ast.Query:
		plan, err = p.PlanQuery(st)
	}
	if err != nil {
		t.Fatal(err)
	}
	topo, err := physical.Build(plan, physical.Options{AppID: "app"})
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// panicGlobals gives every global store as one whose reads panic: a bug
// inside an operator's processing of a record.
type panicGlobals struct{}

func (panicGlobals) Global(string) (physical.Store, error) { return panicStore{}, nil }

type panicStore struct{ state.Store }

func (panicStore) Get([]byte) ([]byte, error) { panic("store read gone wrong") }

// recordingObserver keeps what a runner reported.
type recordingObserver struct {
	mu      sync.Mutex
	running bool
	failed  []error
}

func (o *recordingObserver) Running() { o.mu.Lock(); o.running = true; o.mu.Unlock() }
func (o *recordingObserver) Failed(err error) {
	o.mu.Lock()
	o.failed = append(o.failed, err)
	o.mu.Unlock()
}
func (o *recordingObserver) Recovered(error) {}
func (o *recordingObserver) Stopped()        {}

func produceOn(t *testing.T, m *Mem, topic, key, value string) {
	t.Helper()
	for _, name := range []string{"s", "regions"} {
		if err := m.CreateTopic(t.Context(), TopicSpec{Name: name, Partitions: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Produce(t.Context(), &physical.OutRecord{Topic: topic, Partition: -1, Key: []byte(key), Value: []byte(value)}); err != nil {
		t.Fatal(err)
	}
}

// TestOperatorPanicFailsTheQuery: a panic inside an operator on the
// in-memory cluster puts the persistent query in ERROR as a fatal
// internal error, the panicking frame in its reason, as on Kafka; the
// record is not skipped as bad data.
func TestOperatorPanicFailsTheQuery(t *testing.T) {
	topo := globalJoin(t, `CREATE STREAM out AS SELECT s.k, r.name FROM s JOIN regions r ON s.rid = r.rid;`)
	db, err := state.OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m, obs := NewMem(), &recordingObserver{}
	q := &Query{ID: "CSAS_OUT_1", AppID: "app", Topology: topo, DB: db, Logger: slog.New(slog.DiscardHandler),
		Log: discardLog{}, Globals: panicGlobals{}, Observer: obs, Processed: new(atomic.Int64), Skipped: new(atomic.Int64),
		StreamTimes: &StreamTimes{}, TxnEnds: &Latencies{}, Restores: &Restores{}}
	r, err := m.Start(q)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Stop()
	produceOn(t, m, "s", "a", `{"RID":"r1"}`)
	if len(obs.failed) != 1 {
		t.Fatalf("the query reported %v, want one failure", obs.failed)
	}
	err = obs.failed[0]
	var pe *physical.PanicError
	if !errors.As(err, &pe) || classify(err) != classFatalInternal {
		t.Fatalf("failure %v (class %v), want a fatal internal *physical.PanicError", err, classify(err))
	}
	for _, want := range []string{"store read gone wrong", "panicStore.Get (error_class_uniform_test.go:", "fatal internal error", "bug", "TERMINATE CSAS_OUT_1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("failure %q does not say %q", err, want)
		}
	}
	if m.Failure() == nil {
		t.Error("the test driver was not told of the failure")
	}
}

// panicRows is a push query's client side that panics on a row.
type panicRows struct{}

func (panicRows) Row(*types.Row) bool { panic("row sink gone wrong") }

// discardLog is a processing log that drops its entries.
type discardLog struct{}

func (discardLog) Log(*physical.LogEntry) {}

// TestPushErrorIsClassified: an error that ends a push query on the
// in-memory cluster (here an operator's panic) is told with its class and
// what to do, as a persistent query's failure is.
func TestPushErrorIsClassified(t *testing.T) {
	topo := globalJoin(t, `SELECT s.k, r.name FROM s LEFT JOIN regions r ON s.rid = r.rid EMIT CHANGES;`)
	m := NewMem()
	var ended []error
	q := &Push{ID: "transient_1", AppID: "push", Topology: topo, Logger: slog.New(slog.DiscardHandler), Log: discardLog{},
		Globals: emptyGlobals{}, Rows: panicRows{}, Finish: func(err error) { ended = append(ended, err) }}
	r, err := m.StartPush(q)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Stop()
	produceOn(t, m, "s", "a", `{"RID":"r1"}`)
	if len(ended) != 1 || ended[0] == nil {
		t.Fatalf("the push query ended with %v, want one error", ended)
	}
	for _, want := range []string{"row sink gone wrong", "panicRows.Row", "fatal internal error", "send the query again"} {
		if !strings.Contains(ended[0].Error(), want) {
			t.Errorf("push query error %q does not say %q", ended[0], want)
		}
	}
}

// emptyGlobals gives every global store empty: a left join emits its
// stream row with NULLs.
type emptyGlobals struct{}

func (emptyGlobals) Global(string) (physical.Store, error) { return emptyStore{}, nil }

type emptyStore struct{ state.Store }

func (emptyStore) Get([]byte) ([]byte, error) { return nil, nil }
