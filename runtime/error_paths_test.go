package runtime_test

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/state"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// queryErrors returns the errors EXPLAIN shows for query id, and its
// state.
func (f *faultRig) queryErrors(id string) ([]api.QueryError, string) {
	f.t.Helper()
	d := f.exec("EXPLAIN " + id + ";")[0].(api.QueryDescriptionEntity).QueryDescription
	return d.QueryErrors, *d.State
}

// assertRecovered checks that query id is RUNNING and recovered from an
// error of the class named want.
func (f *faultRig) assertRecovered(id, want string) {
	f.t.Helper()
	errs, st := f.queryErrors(id)
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.ErrorMessage)
	}
	if st != "RUNNING" || !strings.Contains(strings.Join(msgs, "\n"), want+" error; recovered") {
		f.t.Errorf("%s is %s with errors %q, want RUNNING after a recovered %s error", id, st, msgs, want)
	}
}

// recoveryRun runs the exactly_once_v2 count, arms a fault, and checks
// that the query recovered from it down the path of class (EXPLAIN lists
// the error as recovered) with every count exact.
func recoveryRun(t *testing.T, class string, arm func(f *faultRig) *atomic.Int64) {
	faultedCount(t, arm).assertRecovered("CTAS_COUNTS_1", class)
}

// offsetsAnswered answers the first n TxnOffsetCommits with code for
// every partition.
func (f *faultRig) offsetsAnswered(n int, code int16) *atomic.Int64 {
	return f.failTimes(kmsg.TxnOffsetCommit, n, anyRequest, func(req kmsg.Request) kmsg.Response {
		tr := req.(*kmsg.TxnOffsetCommitRequest)
		resp := tr.ResponseKind().(*kmsg.TxnOffsetCommitResponse)
		resp.Version = tr.Version
		for _, t := range tr.Topics {
			rt := kmsg.NewTxnOffsetCommitResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewTxnOffsetCommitResponseTopicPartition()
				rp.Partition = p.Partition
				rp.ErrorCode = code
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp
	})
}

// TestRetriableErrorRedoesWork: a TxnOffsetCommit that timed out (a
// retriable error the client gives up on) ends the session; the runner
// rejoins with a new one and redoes the work since the last commit.
func TestRetriableErrorRedoesWork(t *testing.T) {
	t.Parallel()
	recoveryRun(t, "retriable", func(f *faultRig) *atomic.Int64 {
		return f.offsetsAnswered(1, kerr.RequestTimedOut.Code)
	})
}

// TestMigratedTaskRejoins: a member fenced out of its transactional id
// (a producer of a newer epoch; what a zombie meets) rejoins with a new
// session and restores its tasks.
func TestMigratedTaskRejoins(t *testing.T) {
	t.Parallel()
	recoveryRun(t, "task migrated", func(f *faultRig) *atomic.Int64 {
		return f.offsetsAnswered(1, kerr.ProducerFenced.Code)
	})
}

// TestCorruptStoreIsWipedAndRestored: values of the count's store that
// cannot be decoded (written behind the engine's back while it was down)
// make the task fail with a corrupt state error; the runner, under either
// guarantee, wipes the task's stores, rejoins, restores them from their
// changelog, and counts on exactly (the engine stopped cleanly, so no
// record is reprocessed).
func TestCorruptStoreIsWipedAndRestored(t *testing.T) {
	t.Parallel()
	for _, g := range []string{"at_least_once", "exactly_once_v2"} {
		t.Run(g, func(t *testing.T) { testCorruptStore(t, g) })
	}
}

func testCorruptStore(t *testing.T, guarantee string) {
	f := newEOSRig(t)
	dir := t.TempDir()
	f.restartEngine(dir)
	f.eosCounts("counts", guarantee, 2)
	want := f.produceEvents(200, 20)
	f.awaitCounts("counts", want)
	f.assertPull("counts", want)
	f.e.Close()
	f.e = nil
	if n := corruptStores(t, dir, "Materialize"); n == 0 {
		t.Fatal("no store value corrupted")
	}
	f.restartEngine(dir)
	for k, n := range f.produceEvents(200, 20) {
		want[k] += n
	}
	f.awaitCounts("counts", want)
	f.assertPull("counts", want)
	f.assertRecovered("CTAS_COUNTS_1", "corrupted")
}

// corruptStores overwrites every value of the stores of the data
// directory whose name contains name with a byte no operator can decode,
// keeping their checkpoints (so a restart keeps the local state), and
// returns how many values it overwrote.
func corruptStores(t *testing.T, dir, name string) int {
	t.Helper()
	db, err := state.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n := 0
	for _, id := range db.Stores() {
		if !strings.Contains(id.Name, name) {
			continue
		}
		st, err := db.Store(id, state.WithCache(0))
		if err != nil {
			t.Fatal(err)
		}
		var keys [][]byte
		if err := st.Range(nil, nil, func(k, _ []byte) bool { keys = append(keys, append([]byte(nil), k...)); return true }); err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if err := st.Put(k, []byte{0xff}); err != nil {
				t.Fatal(err)
			}
			n++
		}
		if err := st.Flush(); err != nil {
			t.Fatal(err)
		}
		st.Close()
	}
	return n
}

// TestFatalUserErrorSaysWhatToDo: a record the query must throw on (an
// invalid timestamp under ksql.timestamp.throw.on.invalid) puts the
// query in ERROR, under either guarantee, with a USER error that says
// why and how to get out of ERROR.
func TestFatalUserErrorSaysWhatToDo(t *testing.T) {
	t.Parallel()
	for _, g := range []string{"at_least_once", "exactly_once_v2"} {
		t.Run(g, func(t *testing.T) {
			f := newFaultRig(t)
			f.exec(`CREATE STREAM s (k VARCHAR KEY, ts VARCHAR) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1,
			    TIMESTAMP='ts', TIMESTAMP_FORMAT='yyyy-MM-dd');
			  SET 'auto.offset.reset'='earliest';
			  SET 'ksql.timestamp.throw.on.invalid'='true';
			  SET 'processing.guarantee'='` + g + `';
			  CREATE STREAM out WITH (KAFKA_TOPIC='out') AS SELECT k, ts FROM s;`)
			f.produce("s", "a", `{"TS":"not a date"}`)
			d := f.awaitError("CSAS_OUT_1")
			for _, want := range []string{"TimestampExtractor", "fatal user error", "'ksql.timestamp.throw.on.invalid'='false'", "TERMINATE CSAS_OUT_1"} {
				f.assertErrorMentions(d, want)
			}
			if n := len(d.QueryErrors); n == 0 || d.QueryErrors[n-1].Type != "USER" {
				t.Errorf("query errors %+v: want the last of type USER", d.QueryErrors)
			}
			f.awaitGroupEmpty(d.ConsumerGroupID)
		})
	}
}
