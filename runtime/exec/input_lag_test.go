package exec

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/broker"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/state"
	"github.com/twmb/franz-go/pkg/kgo"
)

// fetchAt is a fetch of partition 0 of "in" with records at offsets.
func fetchAt(hwm, lso int64, offsets ...int64) *kgo.FetchTopicPartition {
	p := &kgo.FetchTopicPartition{Topic: "in"}
	p.HighWatermark, p.LastStableOffset = hwm, lso
	for _, o := range offsets {
		p.Records = append(p.Records, &kgo.Record{Topic: "in", Offset: o})
	}
	return p
}

// TestInputPositionFollowsFetchesAndProcessing pins the position rules of
// input_lag.go: the first fetch starts it, processing moves it, a
// transaction marker past the last record is passed by an empty fetch, a
// rewound consumer takes it back, and records still waiting keep it.
func TestInputPositionFollowsFetchesAndProcessing(t *testing.T) {
	in := &inputPosition{position: -1, fetched: -1, hwm: -1, lso: -1}
	if in.lag() != -1 {
		t.Fatalf("lag before any fetch %d, want -1 (unknown)", in.lag())
	}
	steps := []struct {
		what    string
		fetch   *kgo.FetchTopicPartition
		process int64 // offset after the records processed (0: none)
		lag     int64
	}{
		{"a first fetch of 4 records of 10, none processed", fetchAt(10, 10, 0, 1, 2, 3), 0, 10},
		{"the 4 processed", nil, 4, 6},
		{"the rest fetched, the end moved on", fetchAt(12, 12, 4, 5, 6, 7, 8, 9, 10, 11), 0, 8},
		{"processed to the end", nil, 12, 0},
		{"a transaction's commit marker at 12: an empty fetch at the end", fetchAt(13, 13), 0, 0},
		{"an open transaction past the last stable offset", fetchAt(20, 13), 0, 0},
		{"its records after the commit (13 and on)", fetchAt(22, 22, 13, 14, 15, 16, 17, 18, 19, 20), 0, 9},
		{"processed to 21", nil, 21, 1},
		{"a rewind to 15 after an abort", fetchAt(22, 22, 15, 16), 0, 7},
		{"records waiting (15, 16) keep the position when an empty fetch comes", fetchAt(22, 22), 0, 7},
	}
	for _, s := range steps {
		if s.fetch != nil {
			in.noteFetch(s.fetch)
		}
		if s.process > 0 {
			in.position = s.process
		}
		if got := in.lag(); got != s.lag {
			t.Fatalf("%s: lag %d (position %d, end %d), want %d", s.what, got, in.position, in.end(), s.lag)
		}
	}
}

// gatedGlobals gives every global store as one whose reads wait for
// release: a task that cannot get past its first record.
type gatedGlobals struct {
	entered chan struct{} // closed at the first read
	once    sync.Once
	release chan struct{}
}

func (g *gatedGlobals) Global(string) (physical.Store, error) { return gatedStore{g: g}, nil }

type gatedStore struct {
	state.Store
	g *gatedGlobals
}

func (s gatedStore) Get([]byte) ([]byte, error) {
	s.g.once.Do(func() { close(s.g.entered) })
	<-s.g.release
	return nil, nil
}

// TestTaskReportsConsumerLag: a task held on its first record of five
// already in its input reports a lag of 5 (position 0, the fetch's high
// watermark 5); once it processes them its lag is 0, and the at_least_once
// commit of their offsets is timed (Query.Commits).
func TestTaskReportsConsumerLag(t *testing.T) {
	b, err := broker.Start(broker.WithListen("127.0.0.1:0"), broker.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	k, err := NewKafka(KafkaConfig{Seeds: b.Addrs(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	topo := globalJoin(t, `CREATE STREAM out AS SELECT s.k, r.name FROM s LEFT JOIN regions r ON s.rid = r.rid;`)
	for _, name := range []string{"s", topo.SinkTopic} {
		if err := k.CreateTopic(ctx, TopicSpec{Name: name, Partitions: 1}); err != nil {
			t.Fatal(err)
		}
	}
	const n = 5
	for range n {
		if err := k.Produce(ctx, &physical.OutRecord{Topic: "s", Partition: 0, Key: []byte("a"), Value: []byte(`{"RID":"r1"}`)}); err != nil {
			t.Fatal(err)
		}
	}
	db, err := state.OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	gate := &gatedGlobals{entered: make(chan struct{}), release: make(chan struct{})}
	q := &Query{ID: "CSAS_OUT_1", AppID: "lag-app", Topology: topo, DB: db, Logger: slog.New(slog.DiscardHandler),
		Log: discardLog{}, Globals: gate, Observer: &recordingObserver{}, Processed: new(atomic.Int64), Skipped: new(atomic.Int64),
		StreamTimes: &StreamTimes{}, TxnEnds: &Latencies{}, Restores: &Restores{}, Commits: &Latencies{},
		Config:   Config{CommitInterval: 100 * time.Millisecond, Threads: 1, FromEarliest: true, SessionTimeout: 6 * time.Second},
		Balancer: func(BalancerHooks) kgo.GroupBalancer { return kgo.RoundRobinBalancer() }}
	run, err := k.Start(q)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Stop()
	select {
	case <-gate.entered:
	case <-ctx.Done():
		t.Fatal("the task never read its global store")
	}
	task := activeTask(t, run.(TaskReporter))
	if got := task.ConsumerLag(); got != n || len(task.Inputs) != 1 || task.Inputs[0].Position != 0 || task.Inputs[0].HighWatermark != n {
		t.Fatalf("held on its first record, task %s reports lag %d, inputs %+v; want %d (position 0, high watermark %d)", task.Task, got, task.Inputs, n, n)
	}
	close(gate.release)
	for task.ConsumerLag() != 0 || q.Processed.Load() != n {
		if ctx.Err() != nil {
			t.Fatalf("after processing %d records task %s still reports lag %d, inputs %+v", q.Processed.Load(), task.Task, task.ConsumerLag(), task.Inputs)
		}
		time.Sleep(10 * time.Millisecond) // the next look at the fact
		task = activeTask(t, run.(TaskReporter))
	}
	if in := task.Inputs[0]; in.Position != n || in.Topic != "s" {
		t.Errorf("caught up, the input is %+v, want s at position %d", in, n)
	}
	// The commit of those offsets is timed; the idle commits after it,
	// with no offsets to send, are not.
	for commits, _, _ := q.Commits.Snapshot(); commits == 0; commits, _, _ = q.Commits.Snapshot() {
		if ctx.Err() != nil {
			t.Fatal("no at_least_once commit was timed")
		}
		time.Sleep(10 * time.Millisecond) // the next look at the fact
	}
	committed, _, longest := q.Commits.Snapshot()
	if longest <= 0 {
		t.Errorf("%d commits timed, the longest %v", committed, longest)
	}
	if ends, _, _ := q.TxnEnds.Snapshot(); ends != 0 {
		t.Errorf("an at_least_once query timed %d transaction ends", ends)
	}
}

// activeTask is the one active task a runner reports.
func activeTask(t *testing.T, r TaskReporter) TaskAssignment {
	t.Helper()
	for _, a := range r.Tasks() {
		if a.Role == RoleActive {
			return a
		}
	}
	t.Fatalf("no active task in %+v", r.Tasks())
	return TaskAssignment{}
}
