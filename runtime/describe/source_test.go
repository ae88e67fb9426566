package describe

import (
	"reflect"
	"testing"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/types"
)

// TestSourceSumsItsQueries: DESCRIBE EXTENDED lists the queries reading
// and writing a source and sums their figures, in the queries' order;
// a query that neither reads nor writes it is left out (its figures are
// not even read).
func TestSourceSumsItsQueries(t *testing.T) {
	src := &planner.Source{Name: "S", Kind: ast.Stream, Topic: "s", Schema: &types.Schema{}, Partitions: 2}
	other := &planner.Source{Name: "O"}
	stats := func(s Stats) func() Stats { return func() Stats { return s } }
	queries := []Query{
		{ID: "CSAS_S_1", State: "RUNNING", Plan: &planner.Plan{Sources: []*planner.Source{other}, Sink: src},
			Stats: stats(Stats{Processed: 5, Failed: 1, State: []string{"store a"}})},
		{ID: "CSAS_T_2", State: "ERROR", Plan: &planner.Plan{Sources: []*planner.Source{src}, Sink: other},
			Stats: stats(Stats{Processed: 7, Late: 2, Skipped: 3, FeedErrors: 1, LastFeedError: "boom", State: []string{"store b"}})},
		{ID: "CSAS_U_3", Plan: &planner.Plan{Sources: []*planner.Source{other}, Sink: other},
			Stats: func() Stats { t.Error("figures read of a query that does not use the source"); return Stats{} }},
	}
	d := Source(src, queries, true)
	if len(d.WriteQueries) != 1 || d.WriteQueries[0].ID != "CSAS_S_1" || len(d.ReadQueries) != 1 || d.ReadQueries[0].State != "ERROR" {
		t.Errorf("queries: read %+v, write %+v", d.ReadQueries, d.WriteQueries)
	}
	if want := "consumer-messages-processed: 12\nstate:\nstore a\nstore b"; d.Statistics != want {
		t.Errorf("statistics %q, want %q", d.Statistics, want)
	}
	if want := "consumer-failed-messages: 1 dropped-records (late): 2 dropped-records (null key or value): 3 standby-feed-errors: 1 (last: boom)"; d.ErrorStats != want {
		t.Errorf("error stats %q, want %q", d.ErrorStats, want)
	}
	if d.Partitions != 2 {
		t.Errorf("partitions %d", d.Partitions)
	}
}

// TestHidden: SHOW TOPICS hides Kafka's own topics, names starting with
// '_' and the internal topics under the prefixes, never the others.
func TestHidden(t *testing.T) {
	prefixes := []string{"svc_query_", "app-"}
	var got []string
	for _, ti := range []exec.TopicInfo{{Name: "__consumer_offsets", Internal: true}, {Name: "_schemas"},
		{Name: "svc_query_CSAS_X_1-changelog"}, {Name: "app-repartition"}, {Name: "orders"}, {Name: "svc_ksql_processing_log"}} {
		if !Hidden(ti, prefixes) {
			got = append(got, ti.Name)
		}
	}
	if want := []string{"orders", "svc_ksql_processing_log"}; !reflect.DeepEqual(got, want) {
		t.Errorf("shown %v, want %v", got, want)
	}
}

// TestQueriesListsTransients: SHOW QUERIES lists persistent queries,
// then transient ones as push queries.
func TestQueriesListsTransients(t *testing.T) {
	q := Query{ID: "CSAS_S_1", SQL: "CREATE …", State: "RUNNING", HostStates: map[string]string{"h:1": "RUNNING", "h:2": "ERROR"},
		Plan: &planner.Plan{Sink: &planner.Source{Name: "S", Topic: "s"}}}
	ent := Queries("SHOW QUERIES;", false, []Query{q}, []Transient{{ID: "transient_S_1", SQL: "SELECT …"}}).(api.QueriesList)
	if len(ent.Queries) != 2 || ent.Queries[0].SinkKafkaTopics[0] != "s" || ent.Queries[0].StatusCount["ERROR"] != 1 ||
		ent.Queries[1].QueryType != api.QueryPush {
		t.Errorf("queries: %+v", ent.Queries)
	}
}

// TestStreamTimes: a line per task in task order, its stream time as UTC
// and epoch milliseconds, and its open windows.
func TestStreamTimes(t *testing.T) {
	got := StreamTimes(map[string]int64{"1_0": 1500, "0_1": 0}, map[string]int64{"1_0": 3})
	want := []string{"task 0_1: stream time 1970-01-01T00:00:00.000Z (0), 0 open windows",
		"task 1_0: stream time 1970-01-01T00:00:01.500Z (1500), 3 open windows"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
