package runtime_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime"
)

// graceJoin is a LEFT stream–stream join with a GRACE PERIOD: unmatched
// left rows wait in the shared outer store until the task's stream time
// closes their window (1 minute after them, plus 1 minute of grace).
const graceJoin = `SET 'auto.offset.reset'='earliest';
	CREATE STREAM a_s (k VARCHAR KEY, x INT, ts BIGINT) WITH (KAFKA_TOPIC='a_s', VALUE_FORMAT='JSON', PARTITIONS=1, TIMESTAMP='ts');
	CREATE STREAM b_s (k VARCHAR KEY, y INT, ts BIGINT) WITH (KAFKA_TOPIC='b_s', VALUE_FORMAT='JSON', PARTITIONS=1, TIMESTAMP='ts');
	CREATE STREAM ab AS SELECT a.k, x, y FROM a_s a LEFT JOIN b_s b WITHIN 1 MINUTE GRACE PERIOD 1 MINUTE ON a.k = b.k;`

// graceInput is one input record: topic, key, value and event time.
type graceInput struct {
	topic, key string
	v          int
	ts         int64
}

func (g graceInput) value() string {
	col := map[string]string{"a_s": "X", "b_s": "Y"}[g.topic]
	return fmt.Sprintf(`{"%s":%d,"TS":%d}`, col, g.v, g.ts)
}

// Before the restart k1 joins and k2 (330 s) waits, at stream time 330 s.
// After it, k3 at 200 s arrives with its window already closed by that
// stream time: it is emitted with nulls at once (and still joins b's k3 at
// 210 s, the left store keeping it). With the stream time lost, k3 would
// wait instead, and b's k3 would cancel it: a lost result. k9 at 451 s
// closes k2's window.
var (
	graceBefore = []graceInput{{"a_s", "k1", 1, 0}, {"b_s", "k1", 10, 60000}, {"a_s", "k2", 2, 330000}}
	graceAfter  = []graceInput{{"a_s", "k3", 3, 200000}, {"b_s", "k3", 30, 210000}, {"b_s", "k9", 90, 451000}}
	graceWant   = `k1={"X":1,"Y":10} k3={"X":3,"Y":null} k3={"X":3,"Y":30} k2={"X":2,"Y":null}`
)

// TestGraceJoinWithoutRestart runs the inputs on the test engine in one
// go: the results the restarted runs must reproduce.
func TestGraceJoinWithoutRestart(t *testing.T) {
	t.Parallel()
	if got := graceJoinInOneRun(t); got != graceWant {
		t.Fatalf("results %s, want %s", got, graceWant)
	}
}

func graceJoinInOneRun(t *testing.T) string {
	t.Helper()
	eng, err := runtime.NewTestEngine(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if _, err := eng.ExecuteStatement(graceJoin, nil); err != nil {
		t.Fatal(err)
	}
	for _, in := range append(append([]graceInput{}, graceBefore...), graceAfter...) {
		if err := eng.Produce(&physical.OutRecord{Topic: in.topic, Partition: -1, Key: []byte(in.key), Value: []byte(in.value())}); err != nil {
			t.Fatal(err)
		}
	}
	var out []string
	for _, r := range eng.Drain() {
		if r.Topic == "AB" {
			out = append(out, string(r.Key)+"="+string(r.Value))
		}
	}
	return strings.Join(out, " ")
}

// TestGraceJoinSurvivesRestart stops the engine in the middle, once with
// its local state kept and once with it lost (rebuilt from the
// changelogs): the join's stream time is restored from its shared store,
// so the sink holds exactly the results of the run without a restart,
// none lost or repeated.
func TestGraceJoinSurvivesRestart(t *testing.T) {
	t.Parallel()
	want := graceJoinInOneRun(t)
	for _, lose := range []bool{false, true} {
		t.Run(fmt.Sprintf("lose-state=%t", lose), func(t *testing.T) {
			r := newRig(t)
			out := r.exec(graceJoin)
			app := "default_query_" + *out[len(out)-1].(api.CommandStatusEntity).CommandStatus.QueryID
			for _, in := range graceBefore[:2] {
				r.produce(in.topic, in.key, in.value())
			}
			r.consume("AB", 1) // k1 joined, whichever side came first
			r.produce(graceBefore[2].topic, graceBefore[2].key, graceBefore[2].value())
			r.awaitCommitted(app, "a_s", "b_s") // k2 processed and committed
			r.e.Close()
			r.e = nil
			if lose {
				if err := os.RemoveAll(r.dir + "/state"); err != nil {
					t.Fatal(err)
				}
			}
			r.startEngine()
			// One at a time: each input's result is out before the next is
			// produced, so the two topics are read in this order.
			for i, in := range graceAfter {
				r.produce(in.topic, in.key, in.value())
				r.consume("AB", 2+i)
			}
			// Every input processed and committed: its outputs were
			// acknowledged before the commit, so nothing more follows.
			r.awaitCommitted(app, "a_s", "b_s")
			if got := strings.Join(values(r.consumeAll("AB")), " "); got != want {
				t.Fatalf("sink after the restart: %s, want %s", got, want)
			}
		})
	}
}
