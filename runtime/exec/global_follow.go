package exec

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// FollowStore is what a topic is followed into: a global table's store.
type FollowStore interface {
	// Load applies one record (a control record only advances the
	// position).
	Load(r *physical.InRecord, control bool) error
	// Checkpoint is the next offset to load of each partition (nil: none
	// recorded).
	Checkpoint() (map[int32]int64, error)
	// Reset wipes the store, to load the topic from its beginning.
	Reset() error
	// String names the store for the log.
	String() string
}

// FollowProgress is an optional FollowStore extension: after each fetch
// the follower tells it, for every partition the fetch returned, the
// next offset it loads and where the partition ends (its last stable
// offset, the follower reading read_committed; the high watermark when
// the broker gives none). From the fetches alone: no request is added.
type FollowProgress interface {
	Progress(partition int32, position, end int64)
}

// Follow loads every partition of topic into s (a global table's store)
// from its checkpoint, or from the beginning when it has none or one out
// of the topic's range (s is wiped first): it returns once s has every
// record below the end offsets seen at the call, and keeps loading the
// records that come later, of partitions added later too, until stop. A
// fault after the return goes to onErr. The consumer is unassigned (no
// group): every server reads everything. opts (the global consumer's
// settings) come after the follower's own; none of them sets
// isolation: the follower always reads committed.
func (k *Kafka) Follow(ctx context.Context, topic string, s FollowStore, onErr func(error), opts ...kgo.Opt) (func(), error) {
	ctx, cancel := context.WithCancel(ctx)
	from, catch, err := k.planGlobalLoad(ctx, topic, s)
	if err != nil {
		cancel()
		return nil, err
	}
	// a partition added later joins the next fetch: an idle fetch waits
	// at most as long as the check for new partitions (kgo's default 5 s)
	cl, err := k.Client(append([]kgo.Opt{kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: from}),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords(),
		kgo.FetchMaxWait(min(k.globalCheck, 5*time.Second))}, opts...)...)
	if err != nil {
		cancel()
		return nil, err
	}
	f := &follower{k: k, topic: topic, cl: cl, ends: catch, store: s, known: map[int32]bool{},
		ready: make(chan error, 1), done: make(chan struct{})}
	for p := range from {
		f.known[p] = true
	}
	go f.loop(ctx, onErr)
	if err := <-f.ready; err != nil {
		cancel()
		<-f.done
		return nil, err
	}
	return func() { cancel(); <-f.done }, nil
}

// planGlobalLoad returns where each partition's load starts (s's
// checkpoint, or the beginning) and the end offsets the load must reach
// before the query runs (only partitions with records to read).
func (k *Kafka) planGlobalLoad(ctx context.Context, topic string, s FollowStore) (map[int32]kgo.Offset, map[int32]int64, error) {
	starts, ends, err := k.OffsetRange(ctx, topic)
	if err != nil {
		return nil, nil, err
	}
	ck, err := s.Checkpoint()
	if err != nil {
		return nil, nil, err
	}
	if !checkpointInRange(ck, starts, ends) {
		if len(ck) > 0 {
			k.logger.Warn("global store checkpoint out of the topic's range: full reload", "topic", topic, "store", s.String())
		}
		if err := s.Reset(); err != nil {
			return nil, nil, err
		}
		ck = nil
	}
	from, catch := map[int32]kgo.Offset{}, map[int32]int64{}
	for p, end := range ends {
		next, ok := ck[p]
		if ok {
			from[p] = kgo.NewOffset().At(next)
		} else {
			from[p], next = kgo.NewOffset().AtStart(), starts[p]
		}
		if end > next {
			catch[p] = end
		}
	}
	return from, catch, nil
}

// checkpointInRange: a checkpoint is usable when it has an offset and
// every offset lies within its partition's records (start ≤ next ≤ end).
func checkpointInRange(ck, starts, ends map[int32]int64) bool {
	if len(ck) == 0 {
		return false
	}
	for p, next := range ck {
		end, ok := ends[p]
		if !ok || next < starts[p] || next > end {
			return false
		}
	}
	return true
}

// OffsetRange lists the start and end offsets of every partition of
// topic; a missing topic is an error.
func (k *Kafka) OffsetRange(ctx context.Context, topic string) (starts, ends map[int32]int64, err error) {
	listedEnds, err := k.adm.ListEndOffsets(ctx, topic)
	if err == nil {
		err = listedEnds.Error()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("list end offsets of %s: %w", topic, err)
	}
	listedStarts, err := k.adm.ListStartOffsets(ctx, topic)
	if err == nil {
		err = listedStarts.Error()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("list start offsets of %s: %w", topic, err)
	}
	starts, ends = map[int32]int64{}, map[int32]int64{}
	listedEnds.Each(func(o kadm.ListedOffset) { ends[o.Partition] = o.Offset })
	listedStarts.Each(func(o kadm.ListedOffset) { starts[o.Partition] = o.Offset })
	if len(ends) == 0 {
		return nil, nil, fmt.Errorf("topic %s has no partitions (does it exist?)", topic)
	}
	return starts, ends, nil
}

// follower is the loop of one global table's consumer.
type follower struct {
	k     *Kafka
	topic string
	cl    *kgo.Client
	ends  map[int32]int64 // partitions not caught up yet → their end offset
	store FollowStore
	known map[int32]bool // partitions consumed (touched only by watch)
	ready chan error     // nil once caught up, or the error that stopped it before
	done  chan struct{}
}

func (f *follower) loop(ctx context.Context, onErr func(error)) {
	defer close(f.done)
	wctx, wcancel := context.WithCancel(ctx)
	watched := make(chan struct{})
	go f.watch(wctx, watched)
	defer f.cl.Close()
	defer func() { wcancel(); <-watched }()
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

// watch looks for partitions added to the topic every
// globalPartitionCheck and consumes them from their beginning (Kafka
// clients see new partitions on a metadata refresh; so does this).
func (f *follower) watch(ctx context.Context, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(f.k.globalCheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		listed, err := f.k.adm.ListEndOffsets(ctx, f.topic)
		if err != nil || listed.Error() != nil {
			continue // transient: the next check retries
		}
		added := map[int32]kgo.Offset{}
		listed.Each(func(o kadm.ListedOffset) {
			if !f.known[o.Partition] {
				f.known[o.Partition] = true
				added[o.Partition] = kgo.NewOffset().AtStart()
			}
		})
		if len(added) > 0 {
			f.k.logger.Info("global table topic has new partitions: following them", "topic", f.topic, "partitions", len(added))
			f.cl.AddConsumePartitions(map[string]map[int32]kgo.Offset{f.topic: added})
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
	if err := FetchErr(fs); err != nil {
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
		fromKgo(r, &in)
		lerr = f.store.Load(&in, r.Attrs.IsControl())
	})
	if lerr == nil {
		f.noteProgress(fs)
	}
	return lerr
}

// noteProgress tells a FollowProgress store where each fetched
// partition stands once its records are loaded: past its last record, or
// at the end when the fetch gave it none (the follower loads everything
// it fetches before the next fetch, so nothing fetched is waiting).
func (f *follower) noteProgress(fs kgo.Fetches) {
	fp, ok := f.store.(FollowProgress)
	if !ok {
		return
	}
	fs.EachPartition(func(p kgo.FetchTopicPartition) {
		if p.Err != nil {
			return
		}
		in := inputPosition{position: -1, fetched: -1}
		in.noteFetch(&p)
		if in.fetched >= 0 {
			in.position = in.fetched
		}
		fp.Progress(p.Partition, in.position, in.end())
	})
}

// follow loads the records topic has (in time order across partitions,
// as a join's backlog is replayed) into s, wiped first (the in-memory
// cluster keeps no checkpoint worth trusting), and subscribes it to the
// later ones, which the cluster delivers synchronously like any other.
func (m *Mem) Follow(_ context.Context, topic string, s FollowStore, onErr func(error), _ ...kgo.Opt) (func(), error) {
	if err := s.Reset(); err != nil {
		return nil, err
	}
	load := func(r *physical.InRecord) error { return s.Load(r, false) }
	sub := &memSub{topics: []string{topic}, global: load, onErr: onErr}
	m.mu.Lock()
	var backlog []physical.InRecord
	if t, ok := m.topics[topic]; ok {
		for _, p := range t.parts {
			backlog = append(backlog, p...)
		}
	}
	m.subs = append(m.subs, sub)
	m.mu.Unlock()
	slices.SortStableFunc(backlog, func(a, b physical.InRecord) int { return cmp.Compare(a.Timestamp, b.Timestamp) })
	for i := range backlog {
		if err := load(&backlog[i]); err != nil {
			m.unsubscribe(sub)
			return nil, err
		}
	}
	return func() { m.unsubscribe(sub) }, nil
}
