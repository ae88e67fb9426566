package commandlog

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestLogBetweenServers runs two servers' logs of one service id over a
// kfake broker, through the package's two interfaces only: a command one
// appends is replayed by the other at its start and followed while it
// runs; the chain start is appended once; a copy of an accepted record
// appended by another client is refused.
func TestLogBetweenServers(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.DefaultNumPartitions(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b := newFakeBroker(t, c.ListenAddrs())
	const topic = "_svc_command_topic"
	if _, err := b.adm.CreateTopic(context.Background(), 1, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	cfg := func() Config {
		return Config{Topic: topic, ServiceID: "svc", Dir: t.TempDir(), Secret: "a shared secret of servers",
			ReplayTimeout: 10 * time.Second, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	a := &fakeEngine{}
	la := openReplayed(t, ctx, cfg(), b, a)
	for _, cmd := range []*Command{{Seq: 0, SQL: "CREATE STREAM s …;"}, {Seq: 1, SQL: "CREATE STREAM t …;", QueryID: "Q1"}} {
		a.Lock()
		err := la.Serialized(ctx, func(ctx context.Context) error { return la.Append(ctx, cmd) })
		a.Unlock()
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := a.applied(); len(got) != 0 {
		t.Fatalf("a server applies its own commands itself, not through the log: %v", got)
	}

	other := &fakeEngine{}
	lb := openReplayed(t, ctx, cfg(), b, other)
	if got := other.applied(); fmt.Sprint(got) != "[0 1]" {
		t.Fatalf("replayed by the other server: %v, want [0 1]", got)
	}
	lb.StartFollowing()
	defer lb.StopFollowing()
	a.Lock()
	err = la.Serialized(ctx, func(ctx context.Context) error { return la.Append(ctx, &Command{Seq: 2, SQL: "DROP STREAM t;"}) })
	a.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	other.await(t, ctx, 3)

	// A copy of the first command, appended by a client outside the chain.
	recs, err := la.records(ctx)
	if err != nil || len(recs) < 2 {
		t.Fatalf("records: %d, %v", len(recs), err)
	}
	first := recs[1] // recs[0] is the chain start
	copied := &kgo.Record{Topic: topic, Partition: 0, Key: first.Key, Value: first.Value}
	for _, h := range first.Headers {
		copied.Headers = append(copied.Headers, kgo.RecordHeader{Key: h.Key, Value: h.Value})
	}
	if err := b.cl.ProduceSync(ctx, copied).FirstErr(); err != nil {
		t.Fatal(err)
	}
	a.Lock()
	err = la.Serialized(ctx, func(ctx context.Context) error { return la.Append(ctx, &Command{Seq: 3, SQL: "DROP STREAM s;"}) })
	a.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	other.await(t, ctx, 4)
	if got := other.applied(); fmt.Sprint(got) != "[0 1 2 3]" {
		t.Fatalf("the follower ran %v, want [0 1 2 3] (the copy refused)", got)
	}
}

func openReplayed(t *testing.T, ctx context.Context, cfg Config, b *fakeBroker, e *fakeEngine) *Log {
	t.Helper()
	l, err := Open(ctx, cfg, b, e)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Replay(ctx); err != nil {
		t.Fatal(err)
	}
	return l
}

// fakeEngine records the sequence numbers of the commands applied.
type fakeEngine struct {
	sync.Mutex
	seqs []int64 // under the mutex
}

func (e *fakeEngine) Apply(_ context.Context, cmd *Command) { e.seqs = append(e.seqs, cmd.Seq) }

func (e *fakeEngine) applied() []int64 {
	e.Lock()
	defer e.Unlock()
	return append([]int64(nil), e.seqs...)
}

// await waits until n commands were applied: the log notifies Applied.
func (e *fakeEngine) await(t *testing.T, ctx context.Context, n int) {
	t.Helper()
	for {
		e.Lock()
		got := len(e.seqs)
		e.Unlock()
		if got >= n {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("applied %d of %d commands", got, n)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// fakeBroker is Broker over a kfake cluster.
type fakeBroker struct {
	seeds []string
	cl    *kgo.Client
	adm   *kadm.Client
}

func newFakeBroker(t *testing.T, seeds []string) *fakeBroker {
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return &fakeBroker{seeds: seeds, cl: cl, adm: kadm.NewClient(cl)}
}

func (b *fakeBroker) Client(opts ...kgo.Opt) (*kgo.Client, error) {
	return kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(b.seeds...)}, opts...)...)
}

func (b *fakeBroker) Admin() *kadm.Client { return b.adm }

func (b *fakeBroker) OffsetRange(ctx context.Context, topic string) (starts, ends map[int32]int64, err error) {
	s, err := b.adm.ListStartOffsets(ctx, topic)
	if err != nil {
		return nil, nil, err
	}
	e, err := b.adm.ListEndOffsets(ctx, topic)
	if err != nil {
		return nil, nil, err
	}
	starts, ends = map[int32]int64{}, map[int32]int64{}
	s.Each(func(o kadm.ListedOffset) { starts[o.Partition] = o.Offset })
	e.Each(func(o kadm.ListedOffset) { ends[o.Partition] = o.Offset })
	return starts, ends, nil
}

func (b *fakeBroker) EndOffset(ctx context.Context, topic string, p int32) (int64, error) {
	_, ends, err := b.OffsetRange(ctx, topic)
	return ends[p], err
}

// ReadRange reads [from, end) read_committed, markers included so the
// read reaches an end that is a transaction's marker.
func (b *fakeBroker) ReadRange(ctx context.Context, topic string, p int32, from, end int64, fn func(*kgo.Record) error) error {
	cl, err := b.Client(kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {p: kgo.NewOffset().At(from)}}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())
	if err != nil {
		return err
	}
	defer cl.Close()
	for {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return err
		}
		done := false
		var ferr error
		fs.EachRecord(func(r *kgo.Record) {
			if done || ferr != nil || r.Offset >= end {
				done = true
				return
			}
			if !r.Attrs.IsControl() {
				ferr = fn(r)
			}
			done = r.Offset >= end-1
		})
		if done || ferr != nil {
			return ferr
		}
	}
}

// TestAbortedAppendRunsAgain: an append whose EndTxn the broker answers
// as a commit but executes as an abort (what franz-go's EndTransaction
// does by itself when it believes no produce of the transaction
// succeeded, and returns nil: TestLogBetweenServers lost commands so
// under load) is read back, found missing, and its statement run again,
// so the command is in the topic for the other servers and restarts.
func TestAbortedAppendRunsAgain(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.DefaultNumPartitions(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b := newFakeBroker(t, c.ListenAddrs())
	const topic = "_svc_command_topic"
	if _, err := b.adm.CreateTopic(context.Background(), 1, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	cfg := func() Config {
		return Config{Topic: topic, ServiceID: "svc", Dir: t.TempDir(), Secret: "a shared secret of servers",
			ReplayTimeout: 10 * time.Second, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a := &fakeEngine{}
	la := openReplayed(t, ctx, cfg(), b, a)

	// The first EndTxn ends as an abort: a commit is turned into one, and
	// franz-go may send an abort itself (under -race and load it did, when
	// it believed no produce had succeeded), which is the same case.
	var aborted atomic.Int32
	c.ControlKey(int16(kmsg.EndTxn), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.DropControl()
		req.(*kmsg.EndTxnRequest).Commit = false
		aborted.Add(1)
		return nil, nil, false
	})
	runs := 0
	a.Lock()
	err = la.Serialized(ctx, func(ctx context.Context) error {
		runs++
		return la.Append(ctx, &Command{Seq: 0, SQL: "CREATE STREAM s …;"})
	})
	a.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if aborted.Load() != 1 || runs != 2 {
		t.Fatalf("%d transaction ends made aborts, the statement ran %d times; want 1 and 2", aborted.Load(), runs)
	}
	other := &fakeEngine{}
	openReplayed(t, ctx, cfg(), b, other)
	if got := other.applied(); fmt.Sprint(got) != "[0]" {
		t.Fatalf("replayed by another server: %v, want [0] (the command run again after the abort)", got)
	}
}
