package physical_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
)

// rangeCounting counts the scans of the stores whose names hold sub.
type rangeCounting struct {
	mapStores
	sub    string
	ranges *int
}

func (s rangeCounting) Store(name string) (physical.Store, error) {
	st, err := s.mapStores.Store(name)
	if err != nil || !strings.Contains(name, s.sub) {
		return st, err
	}
	return countedStore{st.(mapStore), s.ranges}, nil
}

type countedStore struct {
	mapStore
	ranges *int
}

func (s countedStore) Range(start, end []byte, fn func(k, v []byte) bool) error {
	*s.ranges++
	return s.mapStore.Range(start, end, fn)
}

// TestFinalScansOnlyWhenAWindowCanClose: an EMIT FINAL aggregation
// scans its buffer of results for closed windows only once stream time
// has passed the earliest buffered window's end, not for every record
// (a Pebble iterator and a batch commit each); the window still comes
// out once, final, when it closes.
func TestFinalScansOnlyWhenAWindowCanClose(t *testing.T) {
	p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{})
	for _, sql := range []string{
		`CREATE STREAM pv (user VARCHAR KEY, n INT) WITH (KAFKA_TOPIC='pv', VALUE_FORMAT='JSON', PARTITIONS=1);`,
	} {
		stmts, err := parser.Parse(sql)
		if err != nil {
			t.Fatal(err)
		}
		src, err := p.CreateSource(stmts[0].(*ast.CreateSource))
		if err != nil {
			t.Fatal(err)
		}
		p.Catalog.Put(src)
	}
	stmts, err := parser.Parse(`CREATE TABLE t AS SELECT user, COUNT(*) AS c FROM pv WINDOW TUMBLING (SIZE 10 SECONDS, GRACE PERIOD 0 SECONDS) GROUP BY user EMIT FINAL;`)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := p.PlanCreateAs(stmts[0].(*ast.CreateAsSelect))
	if err != nil {
		t.Fatal(err)
	}
	topo, err := physical.Build(plan, physical.Options{AppID: "app"})
	if err != nil {
		t.Fatal(err)
	}
	ranges := 0
	emit := &recorder{}
	tk, err := topo.NewTask(0, &physical.TaskEnv{Emit: emit, Stores: rangeCounting{mapStores{}, "Suppress", &ranges}})
	if err != nil {
		t.Fatal(err)
	}
	process := func(ts int64) {
		t.Helper()
		if err := tk.Process(&physical.InRecord{Topic: "pv", Key: []byte("u"), Value: []byte(`{"N":1}`), Timestamp: ts}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 100 {
		process(int64(i) * 50) // 0 … 4.95 s, all in the window [0, 10 s)
	}
	if got := emit.take("T"); len(got) != 0 {
		t.Fatalf("an open window was emitted: %d records", len(got))
	}
	if ranges > 2 {
		t.Errorf("100 records in one open window scanned the buffer %d times, want at most 2", ranges)
	}
	process(10_000) // closes [0, 10 s)
	got := emit.take("T")
	if len(got) != 1 || !strings.Contains(string(got[0].Value), `"C":`+strconv.Itoa(100)) {
		t.Fatalf("closed window emitted %d records %v, want one with C 100", len(got), got)
	}
}
