package runtime_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/twmb/franz-go/pkg/kadm"
)

// queryState is the state SHOW QUERIES gives query id.
func (f *faultRig) queryState(id string) string {
	f.t.Helper()
	for _, ent := range f.exec("SHOW QUERIES;") {
		if ql, ok := ent.(api.QueriesList); ok {
			for _, q := range ql.Queries {
				if q.ID == id {
					return q.State
				}
			}
		}
	}
	f.t.Fatalf("SHOW QUERIES lists no %s", id)
	return ""
}

// commandMessage runs sql, one statement answered by a command status,
// and returns its message.
func (f *faultRig) commandMessage(sql string) string {
	f.t.Helper()
	out := f.exec(sql)
	cs, ok := out[0].(api.CommandStatusEntity)
	if len(out) != 1 || !ok {
		f.t.Fatalf("%s answered %#v, want one command status", sql, out)
	}
	return cs.CommandStatus.Message
}

// awaitPaused waits until the runner of id has carried out its pause
// and then made rounds more poll rounds paused, and returns the rounds.
func (f *faultRig) awaitPaused(id string, rounds int64) int64 {
	f.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		paused, n, err := f.e.PauseFacts(id)
		if paused && n >= rounds {
			return n
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("%s: paused %v after %d rounds (%v), want paused with %d rounds", id, paused, n, err, rounds)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// groupOf is the consumer group of query id.
func (f *faultRig) groupOf(id string) string {
	f.t.Helper()
	gs, err := f.adm.ListGroups(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	for _, g := range gs.Groups() {
		if strings.HasSuffix(g, "query_"+id) {
			return g
		}
	}
	f.t.Fatalf("no group of %s in %v", id, gs.Groups())
	return ""
}

// committedSum sums the offsets group committed on topic.
func (f *faultRig) committedSum(group, topic string) int64 {
	f.t.Helper()
	offs, err := f.adm.FetchOffsets(context.Background(), group)
	if err != nil {
		f.t.Fatal(err)
	}
	var sum int64
	offs.Each(func(o kadm.OffsetResponse) {
		if o.Topic == topic {
			sum += o.At
		}
	})
	return sum
}

// endSum sums topic's end offsets; committed: the last stable offsets
// (a read_committed reader's end), else the high watermarks.
func (f *faultRig) endSum(topic string, committed bool) int64 {
	f.t.Helper()
	list := f.adm.ListEndOffsets
	if committed {
		list = f.adm.ListCommittedOffsets
	}
	ends, err := list(context.Background(), topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		f.t.Fatal(err)
	}
	var sum int64
	ends.Each(func(o kadm.ListedOffset) { sum += o.Offset })
	return sum
}

// TestPauseResume: a paused query keeps its group and stops processing:
// once its runner says the pause took effect, records written to its
// input move the input's end while the group's committed offsets and
// the output stay where they were, through several poll rounds, and
// under exactly_once_v2 no transaction stays open on the output. RESUME
// goes on from there: every record counted exactly once.
func TestPauseResume(t *testing.T) {
	t.Parallel()
	for _, guarantee := range []string{"at_least_once", "exactly_once_v2"} {
		t.Run(guarantee, func(t *testing.T) {
			t.Parallel()
			f := newFaultRig(t)
			f.eosCounts("counts", guarantee, 2)
			const id = "CTAS_COUNTS_1"
			want := f.produceEvents(40, 5)
			f.awaitCounts("counts", want)

			if msg := f.commandMessage("PAUSE " + id + ";"); msg != "Query paused." {
				t.Fatalf("PAUSE answered %q", msg)
			}
			if st := f.queryState(id); st != "PAUSED" {
				t.Fatalf("SHOW QUERIES after PAUSE: %s, want PAUSED", st)
			}
			rounds := f.awaitPaused(id, 0)
			group := f.groupOf(id)
			committed, outEnd := f.committedSum(group, "s"), f.endSum("counts", false)
			for k, n := range f.produceEvents(60, 5) {
				want[k] += n
			}
			if got := f.endSum("s", false); got != 100 {
				t.Fatalf("input end %d, want 100", got)
			}
			f.awaitPaused(id, rounds+5) // polled five more times, records waiting
			if got := f.committedSum(group, "s"); got != committed {
				t.Fatalf("paused: committed offsets moved %d → %d", committed, got)
			}
			if got := f.endSum("counts", false); got != outEnd {
				t.Fatalf("paused: output end moved %d → %d", outEnd, got)
			}
			if hw, lso := f.endSum("counts", false), f.endSum("counts", true); hw != lso {
				t.Fatalf("paused: output high watermark %d, last stable offset %d: a transaction is open", hw, lso)
			}
			if msg := f.commandMessage("PAUSE " + id + ";"); msg != "Query paused." {
				t.Fatalf("PAUSE of a paused query answered %q", msg)
			}

			if msg := f.commandMessage("RESUME " + id + ";"); msg != "Query resumed." {
				t.Fatalf("RESUME answered %q", msg)
			}
			f.awaitCounts("counts", want)
			if st := f.queryState(id); st != "RUNNING" {
				t.Fatalf("SHOW QUERIES after RESUME: %s, want RUNNING", st)
			}
		})
	}
}

// TestPauseAnswers: PAUSE and RESUME answer in ksqlDB's words: an
// unknown id is refused, a transient query's id is accepted and changes
// nothing, and ALL covers every persistent query.
func TestPauseAnswers(t *testing.T) {
	t.Parallel()
	f := newFaultRig(t)
	f.eosCounts("counts", "at_least_once", 1)
	for _, stmt := range []string{"PAUSE CSAS_NOPE_9;", "RESUME CSAS_NOPE_9;"} {
		_, err := f.e.Execute(context.Background(), api.KsqlRequest{Ksql: stmt})
		if err == nil || !strings.Contains(err.Error(), "Unknown queryId: CSAS_NOPE_9") {
			t.Errorf("%s: %v, want Unknown queryId: CSAS_NOPE_9", stmt, err)
		}
	}
	for stmt, want := range map[string]string{
		"PAUSE transient_S_123;": "Query paused.", "RESUME transient_S_123;": "Query resumed.",
		"RESUME CTAS_COUNTS_1;": "Query resumed.", // not paused: nothing to do
	} {
		if msg := f.commandMessage(stmt); msg != want {
			t.Errorf("%s answered %q, want %q", stmt, msg, want)
		}
	}
	if st := f.queryState("CTAS_COUNTS_1"); st != "RUNNING" && st != "PENDING" {
		t.Fatalf("state %s before PAUSE ALL", st)
	}
	f.commandMessage("PAUSE ALL;")
	if st := f.queryState("CTAS_COUNTS_1"); st != "PAUSED" {
		t.Fatalf("PAUSE ALL: %s, want PAUSED", st)
	}
	f.awaitPaused("CTAS_COUNTS_1", 0)
	f.commandMessage("RESUME ALL;")
	if st := f.queryState("CTAS_COUNTS_1"); st == "PAUSED" {
		t.Fatalf("RESUME ALL: still PAUSED")
	}
	f.commandMessage("PAUSE CTAS_COUNTS_1;")
	if msg := f.commandMessage("TERMINATE CTAS_COUNTS_1;"); msg != "Query terminated." {
		t.Fatalf("TERMINATE of a paused query answered %q", msg)
	}
	f.awaitGroupEmpty(f.groupOf("CTAS_COUNTS_1"))
	f.commandMessage("DROP TABLE counts;")
}

// TestPauseSurvivesRestart: the PAUSE is a command of the command log,
// so a restarted server replays it and its query starts paused: records
// written while it was down stay unprocessed until RESUME, which
// processes each of them once.
func TestPauseSurvivesRestart(t *testing.T) {
	t.Parallel()
	f := newEOSRig(t)
	dir := t.TempDir()
	f.restartEngine(dir)
	f.eosCounts("counts", "at_least_once", 2)
	const id = "CTAS_COUNTS_1"
	want := f.produceEvents(30, 3)
	f.awaitCounts("counts", want)
	f.commandMessage("PAUSE " + id + ";")
	f.awaitPaused(id, 0)
	group := f.groupOf(id)
	committed := f.committedSum(group, "s")
	f.e.Close()
	f.e = nil // down while the records come
	for k, n := range f.produceEvents(20, 3) {
		want[k] += n
	}
	f.restartEngine(dir)
	if st := f.queryState(id); st != "PAUSED" {
		t.Fatalf("after the restart: %s, want PAUSED", st)
	}
	f.awaitPaused(id, 5)
	if got := f.committedSum(group, "s"); got != committed {
		t.Fatalf("restarted paused: committed offsets moved %d → %d", committed, got)
	}
	f.commandMessage("RESUME " + id + ";")
	f.awaitCounts("counts", want)
}

// awaitPausedOn waits until query id's runner on e has carried out its
// pause and made rounds poll rounds paused, and returns the rounds.
func awaitPausedOn(t *testing.T, e *runtime.Engine, id string, rounds int64) int64 {
	t.Helper()
	var n int64
	eventually(t, id+" paused", func() bool {
		paused, got, _ := e.PauseFacts(id)
		n = got
		return paused && got >= rounds
	})
	return n
}

// TestPauseAcrossServers: a PAUSE posted to one server pauses the query
// on every server of the service id (each applies the command to its
// tasks); when one server leaves, the tasks the rebalance gives the
// other stay paused: records written meanwhile are not processed until
// RESUME, and then each exactly once.
func TestPauseAcrossServers(t *testing.T) {
	t.Parallel()
	for _, guarantee := range []string{"at_least_once", "exactly_once_v2"} {
		t.Run(guarantee, func(t *testing.T) {
			t.Parallel()
			testPauseAcrossServers(t, guarantee)
		})
	}
}

func testPauseAcrossServers(t *testing.T, guarantee string) {
	p := newPair(t)
	p.splitQuery(t, guarantee)
	p.checkDoubled(t, 0, 40)
	id := queryIDs(t, p.a)[0]
	seq := lastSeq(t, execOn(t, p.a, "PAUSE "+id+";", nil))
	execOn(t, p.b, "SHOW QUERIES;", seq) // B applied the PAUSE
	awaitPausedOn(t, p.b, id, 0)
	awaitPausedOn(t, p.a, id, 0)
	p.bClosed = true
	if err := p.b.Close(); err != nil {
		t.Fatal(err)
	}
	group := "scale_query_" + id
	adm := kadm.NewClient(p.rig.clientOrFatal())
	eventually(t, "A owns every task of "+group, func() bool {
		gs, err := adm.DescribeGroups(context.Background(), group)
		if err != nil || gs[group].State != "Stable" || len(gs[group].Members) != 1 {
			return false
		}
		a, ok := gs[group].Members[0].Assigned.AsConsumer()
		return ok && len(a.Topics) == 1 && len(a.Topics[0].Partitions) == 4
	})
	offs, err := adm.FetchOffsets(context.Background(), group)
	if err != nil {
		t.Fatal(err)
	}
	before := offs.Sorted()
	rounds := awaitPausedOn(t, p.a, id, 0)
	for i := 40; i < 60; i++ {
		p.produce("s", fmt.Sprintf("k%d", i), fmt.Sprintf(`{"V":%d}`, i))
	}
	awaitPausedOn(t, p.a, id, rounds+5)
	after, err := adm.FetchOffsets(context.Background(), group)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(after.Sorted()) != fmt.Sprint(before) {
		t.Fatalf("paused after the rebalance: committed offsets moved\n%v\n→ %v", before, after.Sorted())
	}
	if got := len(p.committed("t")); got != 40 {
		t.Fatalf("paused after the rebalance: %d outputs, want 40", got)
	}
	execOn(t, p.a, "RESUME "+id+";", nil)
	p.checkDoubled(t, 60, 0)
}

// TestPauseInMemory: on the in-memory cluster (`sqlstream test`) a paused
// query holds the records written to its input and processes none of
// them; RESUME processes them in order before it answers, and the query
// goes on as before. An upgrade in place keeps it paused; DROP of its
// sink ends it.
func TestPauseInMemory(t *testing.T) {
	eng := newTestEngine(t, nil)
	for _, sql := range []string{
		"CREATE STREAM s (id VARCHAR KEY, v INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);",
		"CREATE STREAM t AS SELECT id, v * 2 AS w FROM s;",
	} {
		if _, err := eng.ExecuteStatement(sql, nil); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	write := func(from, to int) {
		for i := from; i < to; i++ {
			if err := eng.Produce(&physical.OutRecord{Topic: "s", Partition: -1, Key: []byte(fmt.Sprint(i)), Value: fmt.Appendf(nil, `{"V":%d}`, i)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	outputs := func() string {
		var vs []string
		for _, r := range eng.Read("T") {
			vs = append(vs, string(r.Value))
		}
		return strings.Join(vs, " ")
	}
	write(0, 2)
	if _, err := eng.ExecuteStatement("PAUSE CSAS_T_1;", nil); err != nil {
		t.Fatal(err)
	}
	write(2, 4)
	if got := outputs(); got != `{"W":0} {"W":2}` {
		t.Fatalf("paused: outputs %s", got)
	}
	if _, err := eng.ExecuteStatement("RESUME CSAS_T_1;", nil); err != nil {
		t.Fatal(err)
	}
	write(4, 5)
	if got := outputs(); got != `{"W":0} {"W":2} {"W":4} {"W":6} {"W":8}` {
		t.Fatalf("resumed: outputs %s", got)
	}

	// An upgrade in place of a paused query starts paused: the same
	// query, paused until RESUME.
	for _, sql := range []string{"PAUSE CSAS_T_1;", "CREATE OR REPLACE STREAM t AS SELECT id, v * 2 AS w, v AS u FROM s;"} {
		if _, err := eng.ExecuteStatement(sql, nil); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	write(5, 6)
	if got := outputs(); strings.Count(got, "W") != 5 {
		t.Fatalf("upgraded while paused: outputs %s", got)
	}
	if _, err := eng.ExecuteStatement("RESUME CSAS_T_1;", nil); err != nil {
		t.Fatal(err)
	}
	if got := outputs(); !strings.HasSuffix(got, `{"W":10,"U":5}`) {
		t.Fatalf("upgraded and resumed: outputs %s", got)
	}

	// DROP of a paused query's sink ends the query.
	for _, sql := range []string{"PAUSE CSAS_T_1;", "DROP STREAM t;"} {
		if _, err := eng.ExecuteStatement(sql, nil); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	if out, _ := eng.ExecuteStatement("SHOW QUERIES;", nil); len(out[0].(api.QueriesList).Queries) != 0 {
		t.Fatalf("after DROP of the paused query's sink: %+v", out)
	}
}

// TestPauseRefusesSourceTableQueries: a SOURCE table's query cannot be
// paused or resumed on its own, in ksqlDB's words (PAUSE ALL covers it).
func TestPauseRefusesSourceTableQueries(t *testing.T) {
	eng := newTestEngine(t, nil)
	if _, err := eng.ExecuteStatement("CREATE SOURCE TABLE st (id VARCHAR PRIMARY KEY, v INT) WITH (kafka_topic='st', value_format='JSON', partitions=1);", nil); err != nil {
		t.Fatal(err)
	}
	out, err := eng.ExecuteStatement("SHOW QUERIES;", nil)
	if err != nil {
		t.Fatal(err)
	}
	id := out[0].(api.QueriesList).Queries[0].ID
	for _, verb := range []string{"pause", "resume"} {
		_, err := eng.ExecuteStatement(strings.ToUpper(verb)+" "+id+";", nil)
		want := fmt.Sprintf("Cannot %s query '%s' because it is linked to a source table.", verb, id)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s %s: %v, want %q", verb, id, err, want)
		}
	}
	if _, err := eng.ExecuteStatement("PAUSE ALL;", nil); err != nil {
		t.Fatal(err)
	}
}
