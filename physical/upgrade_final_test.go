package physical_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/state"
)

// TestUpgradeFinalWindowsOpenAcrossIt: an EMIT FINAL window buffered
// before an upgrade that adds aggregates and closed after it emits, for
// each added aggregate, what the aggregate gives a group that saw none
// of its records (COUNT 0, SUM 0, COLLECT_LIST [], MAX NULL), not NULL;
// a window that got a record after the upgrade emits its results
// recomputed from its accumulators (the kept count goes on, the added
// aggregates count that record). Once on the same stores, once on
// stores restored from the changelogs between the upgrade and the close
// (the buffer's records of the old layout only).
func TestUpgradeFinalWindowsOpenAcrossIt(t *testing.T) {
	const window = `WINDOW TUMBLING (SIZE 10 SECONDS, GRACE PERIOD 0 SECONDS) GROUP BY page EMIT FINAL;`
	oldPlan, newPlan := upgradePlans(t,
		`CREATE TABLE per_page AS SELECT page, COUNT(*) AS n FROM views `+window,
		`CREATE TABLE per_page AS SELECT page, COUNT(*) AS n, SUM(ms) AS total, COUNT(ms) AS c,
		   COLLECT_LIST(ms) AS all_ms, MAX(ms) AS hi FROM views `+window)
	build := func(plan *planner.Plan) *physical.Topology {
		topo, err := physical.Build(plan, physical.Options{AppID: "app"})
		if err != nil {
			t.Fatal(err)
		}
		return topo
	}
	oldTopo, newTopo := build(oldPlan), build(newPlan)
	if _, err := physical.CompareState(oldTopo, newTopo); err != nil {
		t.Fatal(err)
	}
	for _, restore := range []bool{false, true} {
		t.Run(fmt.Sprintf("restore=%t", restore), func(t *testing.T) {
			db, err := state.OpenMem()
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			sink := &sinkRows{topic: "PER_PAGE"}
			stores := &loggedStores{db: db, logs: changelogs{}, timed: timedStores(oldTopo, newTopo)}
			// [0,10) of a and b stay open (stream time 5 s).
			feedViews(t, openPipeline(t, oldTopo, stores, sink), 0, view{"a", 1, 1000}, view{"b", 2, 2000}, view{"a", 3, 5000})
			stores.close(t)
			if len(sink.rows) != 0 {
				t.Fatalf("before the upgrade the sink got %v, want nothing (no window closed)", sink.rows)
			}
			if restore {
				db = restoredDB(t, stores)
				defer db.Close()
				stores = &loggedStores{db: db, logs: changelogs{}, timed: stores.timed}
			}
			// a gets a record after the upgrade, b none; 25 s closes both.
			feedViews(t, openPipeline(t, newTopo, stores, sink), 3, view{"a", 10, 6000}, view{"c", 7, 25000})
			stores.close(t)
			want := []string{
				`{"N":3,"TOTAL":10,"C":1,"ALL_MS":[10],"HI":10}`,
				`{"N":1,"TOTAL":0,"C":0,"ALL_MS":[],"HI":null}`,
			}
			if got := sinkValues(sink); !slices.Equal(got, want) {
				t.Fatalf("the windows closed after the upgrade emitted\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// view is one views record: its page, ms and timestamp.
type view struct {
	page string
	ms   int64
	ts   int64
}

// feedViews processes views records, offsets from from on.
func feedViews(t *testing.T, pl *pipeline, from int, views ...view) {
	t.Helper()
	for i, v := range views {
		r := &physical.InRecord{Topic: "views", Key: []byte(fmt.Sprint("u", from+i)), Offset: int64(from + i),
			Value: []byte(fmt.Sprintf(`{"PAGE":%q,"MS":%d}`, v.page, v.ms)), Timestamp: v.ts}
		if err := pl.process(r); err != nil {
			t.Fatal(err)
		}
	}
}

// restoredDB is a new state DB whose stores are restored from the
// changelogs stores' stores wrote (a server that lost its local state).
func restoredDB(t *testing.T, stores *loggedStores) *state.DB {
	t.Helper()
	db, err := state.OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	for name, recs := range stores.logs {
		r := db.Restorer(state.StoreID{App: "app", Name: name}, stores.layout(name)...)
		for i, rec := range recs {
			if err := r.Restore(rec.key, rec.value, rec.ts, int64(i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.Done(); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// sinkValues are the values of the sink's rows (their keys are windowed
// bytes).
func sinkValues(s *sinkRows) []string {
	var out []string
	for _, r := range s.rows {
		if i := strings.LastIndex(r, "={"); i >= 0 {
			out = append(out, r[i+1:])
		}
	}
	return out
}

// TestUpgradeFinalWindowsInRegistryFormats: as
// TestUpgradeFinalWindowsOpenAcrossIt over AVRO and PROTOBUF streams,
// whose EMIT FINAL buffers hold the results in those formats (PROTOBUF
// with wrapped scalars): a window buffered before the upgrade has no
// field for an added aggregate and emits its initial result; a kept
// aggregate's NULL (MAX before any value) stays NULL.
func TestUpgradeFinalWindowsInRegistryFormats(t *testing.T) {
	fake := srfake.New()
	t.Cleanup(fake.Close)
	reg, err := format.NewRegistryClient(format.RegistryConfig{URLs: []string{fake.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	const window = `FROM s WINDOW TUMBLING (SIZE 10 SECONDS, RETENTION 1 DAY, GRACE PERIOD 0 SECONDS) GROUP BY k EMIT FINAL;`
	for _, f := range []struct{ name, with string }{
		{"AVRO", "VALUE_FORMAT='AVRO'"},
		// Without wrappers a PROTOBUF NULL x would read as 0.
		{"PROTOBUF", "VALUE_FORMAT='PROTOBUF', VALUE_PROTOBUF_NULLABLE_REPRESENTATION='WRAPPER'"},
	} {
		t.Run(f.name, func(t *testing.T) {
			source := fmt.Sprintf(`CREATE STREAM s (k STRING KEY, x BIGINT) WITH (KAFKA_TOPIC='s', KEY_FORMAT='KAFKA', %s, PARTITIONS=1);`, f.with)
			stores := mapStores{}
			a := newAvroAggregationOver(t, reg, stores, source,
				`CREATE TABLE t WITH (FORMAT='JSON') AS SELECT k, COUNT(*) AS n, MAX(x) AS hi `+window, physical.Options{})
			a.sendValues(t, "ann", 1000, int64(1))
			a.sendValues(t, "bob", 2000, nil) // bob's MAX stays NULL
			a = newAvroAggregationOver(t, reg, stores, source,
				`CREATE TABLE t WITH (FORMAT='JSON') AS SELECT k, COUNT(*) AS n, MAX(x) AS hi, SUM(x) AS total,
				   COUNT(x) AS c, COLLECT_LIST(x) AS all_x `+window, physical.Options{})
			a.sendValues(t, "ann", 3000, int64(10))
			a.sendValues(t, "ann", 20_000, int64(7)) // closes [0, 10 s)
			var got []string
			for _, r := range a.emit.recs {
				if r.Topic == a.topo.SinkTopic {
					got = append(got, string(r.Value))
				}
			}
			want := []string{
				`{"N":2,"HI":10,"TOTAL":10,"C":1,"ALL_X":[10]}`,
				`{"N":1,"HI":null,"TOTAL":0,"C":0,"ALL_X":[]}`,
			}
			if !slices.Equal(got, want) {
				t.Fatalf("the windows closed after the upgrade emitted\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}
