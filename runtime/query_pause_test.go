package runtime_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
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
