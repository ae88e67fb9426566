package runtime_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/runtime/figures"
)

// figuresOf returns the figures GET /tasks gives query id (false while
// it has no runner here).
func figuresOf(r *rig, id string) (figures.Query, bool) {
	for _, q := range r.e.TaskAssignments() {
		if q.QueryID == id {
			return q.Figures, true
		}
	}
	return figures.Query{}, false
}

// awaitFigures waits until ok holds of query id's figures.
func awaitFigures(t *testing.T, r *rig, id, what string, ok func(figures.Query) bool) figures.Query {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		f, found := figuresOf(r, id)
		if found && ok(f) {
			return f
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: query %s's figures are %+v (found: %v)", what, id, f, found)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// nodeRecords is the records node received, by name.
func nodeRecords(f figures.Query, node string) int64 {
	for _, n := range f.Nodes {
		if n.Node == node {
			return n.Records
		}
	}
	return -1
}

// TestGlobalStoreFigures: a global table's store has its figures, what
// the description's "Sub-topology 1 for global store" section shows:
// both its nodes count the records loaded (3 before the query ran, 2
// more while it runs), its rows are the rows committed (the checkpoint's
// entry not counted), and its follower's lag against the topic's end is
// 0 once caught up; /metrics says the same.
func TestGlobalStoreFigures(t *testing.T) {
	r := newRig(t)
	r.exec(globalOrders)
	for i := range 3 {
		r.produce("regions", fmt.Sprintf("r%d", i), fmt.Sprintf(`{"NAME":"n%d"}`, i))
	}
	r.exec(globalJoin)
	r.produce("orders", "a", `{"REGION":"r1","TOTAL":1}`)
	expectRegion(t, r, "BY_REGION", 1, `a={"NAME":"n1","TOTAL":1}`)
	const id = "CSAS_BY_REGION_2"
	caughtUp := func(n int64) func(figures.Query) bool {
		return func(f figures.Query) bool {
			return len(f.Globals) == 1 && f.Globals[0].Loaded == n && f.Globals[0].Lag() == 0
		}
	}
	f := awaitFigures(t, r, id, "the load", caughtUp(3))
	g := f.Globals[0]
	if g.Store != "REGIONS-GlobalStore" || g.Topic != "regions" || g.Rows != 3 || len(g.Partitions) != 1 || g.Partitions[0].End != 3 || g.Partitions[0].Position != 3 {
		t.Errorf("the global store's figures: %+v", g)
	}
	for _, node := range []string{"Source-REGIONS", "REGIONS-GlobalStore-Materialize"} {
		if n := nodeRecords(f, node); n != 3 {
			t.Errorf("node %s counts %d records, want the 3 loaded", node, n)
		}
	}

	r.produce("regions", "r3", `{"NAME":"n3"}`)
	r.produce("regions", "r1", `{"NAME":"n1-2"}`)
	f = awaitFigures(t, r, id, "following the topic", caughtUp(5))
	if n := nodeRecords(f, "Source-REGIONS"); n != 5 {
		t.Errorf("Source-REGIONS counts %d, want 5", n)
	}
	// Rows count once committed: at the end of the load, then every
	// 4096 records (global.Store), so the two followed are not yet.
	if rows := f.Globals[0].Rows; rows != 3 {
		t.Errorf("the store holds %d committed rows, want the load's 3", rows)
	}

	rec := httptest.NewRecorder()
	r.e.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, m := range []string{
		`sqlstream_node_records_total{node="Source-REGIONS",query="` + id + `",subtopology="1"} 5`,
		`sqlstream_node_records_total{node="REGIONS-GlobalStore-Materialize",query="` + id + `",subtopology="1"} 5`,
		`sqlstream_global_store_lag{query="` + id + `",store="REGIONS-GlobalStore"} 0`,
		`sqlstream_global_store_rows{query="` + id + `",store="REGIONS-GlobalStore"} 3`,
	} {
		if !strings.Contains(rec.Body.String(), m) {
			t.Errorf("metrics have no %s:\n%s", m, rec.Body.String())
		}
	}
}

// TestUpgradeCountsContinue: CREATE OR REPLACE of a running query keeps
// its counts: records processed and the nodes both plans have (the
// source, the projection, the sink) go on from the 3 records before the
// upgrade, the filter the new plan adds counts only the 2 after it, and
// the query says when it was upgraded (/metrics too).
func TestUpgradeCountsContinue(t *testing.T) {
	r := newRig(t)
	r.exec("CREATE STREAM s (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);")
	r.exec("CREATE STREAM big AS SELECT k, v FROM s;")
	const id = "CSAS_BIG_1"
	for i := range 3 {
		r.produce("s", fmt.Sprint(i), `{"v":5}`)
	}
	r.consume("BIG", 3)
	awaitFigures(t, r, id, "the first plan's records", func(f figures.Query) bool { return nodeRecords(f, "Sink-BIG") == 3 })
	before := time.Now()
	r.exec("CREATE OR REPLACE STREAM big AS SELECT k, v FROM s WHERE v > 1;")
	r.produce("s", "x", `{"v":6}`)
	r.produce("s", "y", `{"v":0}`)
	r.consume("BIG", 4)
	f := awaitFigures(t, r, id, "the new plan's records", func(f figures.Query) bool {
		return f.Processed == 5 && nodeRecords(f, "Source-S") == 5 && nodeRecords(f, "WhereFilter") == 2
	})
	for node, want := range map[string]int64{"Project": 4, "Sink-BIG": 4} {
		if n := nodeRecords(f, node); n != want {
			t.Errorf("%s counts %d, want %d (3 before the upgrade, 1 passed after)", node, n, want)
		}
	}
	if f.UpgradedAt.Before(before) || f.UpgradedAt.After(time.Now()) {
		t.Errorf("upgraded at %v, want the CREATE OR REPLACE's time (after %v)", f.UpgradedAt, before)
	}
	if len(f.NodeSince) != 1 || !f.NodeSince["0/WhereFilter"].Equal(f.UpgradedAt) {
		t.Errorf("nodes counting since the upgrade: %v, want the filter alone", f.NodeSince)
	}
	rec := httptest.NewRecorder()
	r.e.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if m := `sqlstream_query_upgraded_timestamp_seconds{query="` + id + `"}`; !strings.Contains(rec.Body.String(), m) {
		t.Errorf("metrics have no %s", m)
	}
}
