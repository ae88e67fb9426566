package runtime

import (
	"cmp"
	"context"
	"slices"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kgo"
)

// follow reads every partition of topic from the beginning into load
// (a global table's store): it returns once load has had every record
// below the end offsets seen at the call, and keeps loading the records
// that come later until stop. A fault after the return goes to onErr.
// The consumer is unassigned (no group): every server reads everything.
func (k *kafkaCluster) follow(topic string, load func(*physical.InRecord) error, onErr func(error)) (func(), error) {
	ctx, cancel := context.WithCancel(context.Background())
	ends, err := k.nonEmptyEnds(ctx, topic)
	if err != nil {
		cancel()
		return nil, err
	}
	cl, err := k.client(kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())
	if err != nil {
		cancel()
		return nil, err
	}
	f := &follower{cl: cl, ends: ends, load: load, ready: make(chan error, 1), done: make(chan struct{})}
	go f.loop(ctx, onErr)
	if err := <-f.ready; err != nil {
		cancel()
		<-f.done
		return nil, err
	}
	return func() { cancel(); <-f.done }, nil
}

// follower is the loop of one global table's consumer.
type follower struct {
	cl    *kgo.Client
	ends  map[int32]int64 // partitions not caught up yet → their end offset
	load  func(*physical.InRecord) error
	ready chan error // nil once caught up, or the error that stopped it before
	done  chan struct{}
}

func (f *follower) loop(ctx context.Context, onErr func(error)) {
	defer close(f.done)
	defer f.cl.Close()
	caught := len(f.ends) == 0
	if caught {
		f.ready <- nil
	}
	for {
		err := f.poll(ctx)
		if err == nil && ctx.Err() != nil {
			err = ctx.Err()
		}
		switch {
		case err != nil && !caught:
			f.ready <- err
			return
		case err != nil && ctx.Err() == nil:
			onErr(err)
			return
		case err != nil:
			return
		case !caught && len(f.ends) == 0:
			caught = true
			f.ready <- nil
		}
	}
}

// poll loads one fetch's records, noting the partitions that reached
// their end offsets (a transaction marker at the end counts).
func (f *follower) poll(ctx context.Context) error {
	fs := f.cl.PollFetches(ctx)
	if ctx.Err() != nil {
		return nil
	}
	if err := fetchErr(fs); err != nil {
		return err
	}
	var in physical.InRecord
	var lerr error
	fs.EachRecord(func(r *kgo.Record) {
		if lerr != nil {
			return
		}
		if end, ok := f.ends[r.Partition]; ok && r.Offset >= end-1 {
			delete(f.ends, r.Partition)
		}
		if r.Attrs.IsControl() {
			return
		}
		fromKgo(r, &in)
		lerr = f.load(&in)
	})
	return lerr
}

// follow loads the records topic has (in time order across partitions,
// as a join's backlog is replayed) and subscribes load to the later
// ones, which the cluster delivers synchronously like any other.
func (m *memCluster) follow(topic string, load func(*physical.InRecord) error, onErr func(error)) (func(), error) {
	s := &memSub{topics: []string{topic}, global: load, onErr: onErr}
	m.mu.Lock()
	var backlog []physical.InRecord
	if t, ok := m.topics[topic]; ok {
		for _, p := range t.parts {
			backlog = append(backlog, p...)
		}
	}
	m.subs = append(m.subs, s)
	m.mu.Unlock()
	slices.SortStableFunc(backlog, func(a, b physical.InRecord) int { return cmp.Compare(a.Timestamp, b.Timestamp) })
	for i := range backlog {
		if err := load(&backlog[i]); err != nil {
			m.unsubscribe(s)
			return nil, err
		}
	}
	return func() { m.unsubscribe(s) }, nil
}
