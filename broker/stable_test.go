package broker

import (
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The tests below drive the cleaner by hand (cleanOnce) on a compacted
// topic with 100-byte segments, so every partition of a few records is
// cleanable. Offsets are written as comments: kfake never compacts the
// last batch, so each scenario ends with a non-transactional x=1.

func compactedTable(t *testing.T) (*Broker, *kgo.Client) {
	t.Helper()
	b := startTest(t, WithCompactionInterval(time.Hour))
	cl := newClient(t, b)
	createTopic(t, cl, "table", 1, map[string]*string{"cleanup.policy": ptr("compact"), "segment.bytes": ptr("100")})
	return b, cl
}

func txnProducer(t *testing.T, b *Broker, id string) *kgo.Client {
	t.Helper()
	cl := newClient(t, b, kgo.TransactionalID(id))
	if err := cl.BeginTransaction(); err != nil {
		t.Fatalf("begin transaction %s: %v", id, err)
	}
	return cl
}

func endTxn(t *testing.T, cl *kgo.Client, commit kgo.TransactionEndTry) {
	t.Helper()
	if err := cl.EndTransaction(testCtx(t), commit); err != nil {
		t.Fatalf("end transaction: %v", err)
	}
}

// view reads the table from the start at the given isolation level up to
// a sentinel record it writes first, and returns the records (without
// sentinels) as key=value in offset order.
func view(t *testing.T, b *Broker, cl *kgo.Client, level kgo.IsolationLevel) []string {
	t.Helper()
	sentinel := strconv.FormatInt(time.Now().UnixNano(), 10)
	produce(t, cl, "table", "end", sentinel)
	rd := newClient(t, b, kgo.ConsumeTopics("table"), kgo.FetchIsolationLevel(level))
	defer rd.Close()
	ctx := testCtx(t)
	got := []string{}
	for {
		fs := rd.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("sentinel not read; read %v", got)
		}
		done := false
		fs.EachRecord(func(r *kgo.Record) {
			if string(r.Key) == "end" {
				done = done || string(r.Value) == sentinel
				return
			}
			got = append(got, string(r.Key)+"="+string(r.Value))
		})
		if done {
			return got
		}
	}
}

func assertView(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

// TestKfakeCompactionIgnoresOpenTransactions documents why the cleaner
// guards compaction: kfake's own Compact lets a record of an open
// transaction supersede a committed one, so the abort erases k=v1. If
// this starts failing, kfake bounds compaction by the last stable offset
// and the gate (stable.go) can go.
func TestKfakeCompactionIgnoresOpenTransactions(t *testing.T) {
	b, cl := compactedTable(t)
	produce(t, cl, "table", "k", "v1") // 0
	txn := txnProducer(t, b, "t1")
	produce(t, txn, "table", "k", "v2") // 1, open
	produce(t, cl, "table", "x", "1")   // 2
	b.cluster.Compact()
	endTxn(t, txn, kgo.TryAbort)
	assertView(t, "read_committed after kfake's compaction and the abort", view(t, b, cl, kgo.ReadCommitted()), "x=1")
}

// TestCompactionWaitsForOpenTransactionThenAbort: the cleaner does not
// compact while a transaction is open on a compacted partition; after the
// abort it compacts, drops the aborted record and keeps k=v1.
func TestCompactionWaitsForOpenTransactionThenAbort(t *testing.T) {
	b, cl := compactedTable(t)
	produce(t, cl, "table", "k", "v1") // 0
	txn := txnProducer(t, b, "t1")
	produce(t, txn, "table", "k", "v2") // 1, open
	produce(t, cl, "table", "x", "1")   // 2
	cleaned := map[string]int64{}
	b.cleanOnce(cleaned)
	if len(cleaned) != 0 {
		t.Fatalf("compacted with an open transaction: %v", cleaned)
	}
	endTxn(t, txn, kgo.TryAbort) // marker at 3
	assertView(t, "read_committed after the abort", view(t, b, cl, kgo.ReadCommitted()), "k=v1", "x=1")
	b.cleanOnce(cleaned)
	if len(cleaned) == 0 {
		t.Fatal("no compaction once the transaction ended")
	}
	assertView(t, "read_uncommitted after compaction", view(t, b, cl, kgo.ReadUncommitted()), "k=v1", "x=1")
	assertView(t, "read_committed after compaction", view(t, b, cl, kgo.ReadCommitted()), "k=v1", "x=1")
}

// TestCompactionWaitsForOpenTransactionThenCommit: a transaction open at
// a cleaner tick and committed later supersedes k=v1 at the next one.
func TestCompactionWaitsForOpenTransactionThenCommit(t *testing.T) {
	b, cl := compactedTable(t)
	produce(t, cl, "table", "k", "v1") // 0
	txn := txnProducer(t, b, "t1")
	produce(t, txn, "table", "k", "v2") // 1, open
	produce(t, cl, "table", "x", "1")   // 2
	cleaned := map[string]int64{}
	b.cleanOnce(cleaned)
	if len(cleaned) != 0 {
		t.Fatalf("compacted with an open transaction: %v", cleaned)
	}
	endTxn(t, txn, kgo.TryCommit) // marker at 3
	b.cleanOnce(cleaned)
	if len(cleaned) == 0 {
		t.Fatal("no compaction once the transaction ended")
	}
	assertView(t, "read_uncommitted after compaction", view(t, b, cl, kgo.ReadUncommitted()), "k=v2", "x=1")
	assertView(t, "read_committed after compaction", view(t, b, cl, kgo.ReadCommitted()), "k=v2", "x=1")
}

// TestAbortedRecordNeverShadows: a record aborted before the tick does
// not supersede the committed one; compaction removes it.
func TestAbortedRecordNeverShadows(t *testing.T) {
	b, cl := compactedTable(t)
	produce(t, cl, "table", "k", "v1") // 0
	txn := txnProducer(t, b, "t1")
	produce(t, txn, "table", "k", "v2") // 1
	endTxn(t, txn, kgo.TryAbort)        // 2
	produce(t, cl, "table", "x", "1")   // 3
	cleaned := map[string]int64{}
	b.cleanOnce(cleaned)
	if len(cleaned) == 0 {
		t.Fatal("no compaction without open transactions")
	}
	assertView(t, "read_uncommitted after compaction", view(t, b, cl, kgo.ReadUncommitted()), "k=v1", "x=1")
	assertView(t, "read_committed after compaction", view(t, b, cl, kgo.ReadCommitted()), "k=v1", "x=1")
}

// TestCompactionKeepsTransactionsWorking: committed transactional records
// compact like any other, the control records of producers whose data is
// gone go too, and the same transactional ids keep working afterwards.
func TestCompactionKeepsTransactionsWorking(t *testing.T) {
	b, cl := compactedTable(t)
	a := txnProducer(t, b, "a")
	produce(t, a, "table", "k", "v1") // 0
	endTxn(t, a, kgo.TryCommit)       // 1
	c := txnProducer(t, b, "c")
	produce(t, c, "table", "k", "v2") // 2
	endTxn(t, c, kgo.TryCommit)       // 3
	produce(t, cl, "table", "x", "1") // 4
	b.cleanOnce(map[string]int64{})
	assertView(t, "read_uncommitted after compaction", view(t, b, cl, kgo.ReadUncommitted()), "k=v2", "x=1")
	for _, step := range []struct {
		cl    *kgo.Client
		value string
		end   kgo.TransactionEndTry
		want  []string
	}{
		{a, "v3", kgo.TryAbort, []string{"k=v2", "x=1", "y=v3"}},
		{c, "v4", kgo.TryCommit, []string{"x=1", "y=v3", "k=v4", "y=v4"}}, // y=v4 is the last batch, never cleaned
	} {
		if err := step.cl.BeginTransaction(); err != nil {
			t.Fatalf("begin: %v", err)
		}
		produce(t, step.cl, "table", "k", step.value)
		endTxn(t, step.cl, step.end)
		produce(t, cl, "table", "y", step.value)
		b.cleanOnce(map[string]int64{})
		assertView(t, "read_committed after "+step.value, view(t, b, cl, kgo.ReadCommitted()), step.want...)
	}
}

// TestGateHoldsTransactionalProduce: while the cleaner's gate is shut, a
// transactional produce waits and a plain one does not.
func TestGateHoldsTransactionalProduce(t *testing.T) {
	b, cl := compactedTable(t)
	txn := txnProducer(t, b, "t1")
	b.gate.shut()
	done := make(chan error, 1)
	go func() {
		done <- txn.ProduceSync(testCtx(t), &kgo.Record{Topic: "table", Key: []byte("k"), Value: []byte("held")}).FirstErr()
	}()
	produce(t, cl, "table", "x", "1")
	select {
	case err := <-done:
		b.gate.open()
		t.Fatalf("transactional produce finished with the gate shut: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	b.gate.open()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("held produce: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("held produce did not finish after the gate opened")
	}
}

// TestCleanerBackoffIsFixed: no client can bring kfake's own compaction
// timer back by changing log.cleaner.backoff.ms, incrementally or by
// replacing the broker's configs.
func TestCleanerBackoffIsFixed(t *testing.T) {
	b := startTest(t)
	adm := kadm.NewClient(newClient(t, b))
	ctx := testCtx(t)
	one := ptr("1")
	inc, err := adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: cleanerBackoffKey, Value: one}})
	assertPolicyViolation(t, "incremental set", inc, err)
	state, err := adm.AlterBrokerConfigsState(ctx, []kadm.AlterConfig{{Name: "log.retention.ms", Value: ptr("-1")}})
	assertPolicyViolation(t, "replacing the configs", state, err)
	rcs, err := adm.DescribeBrokerConfigs(ctx)
	if err != nil {
		t.Fatalf("describe broker configs: %v", err)
	}
	for _, rc := range rcs {
		for _, c := range rc.Configs {
			if c.Key == cleanerBackoffKey && c.MaybeValue() != cleanerBackoffMs {
				t.Fatalf("%s = %q, want %s", c.Key, c.MaybeValue(), cleanerBackoffMs)
			}
		}
	}
}

func assertPolicyViolation(t *testing.T, what string, rs kadm.AlterConfigsResponses, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if len(rs) == 0 {
		t.Fatalf("%s: no responses", what)
	}
	for _, r := range rs {
		if !errors.Is(r.Err, kerr.PolicyViolation) {
			t.Fatalf("%s: %s answered %v, want POLICY_VIOLATION", what, r.Name, r.Err)
		}
	}
}
