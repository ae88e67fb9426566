package exec

import (
	"context"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/state"
	"github.com/twmb/franz-go/pkg/kgo"
)

// standbyFeeder keeps this server's standby and warmup replicas of a
// query's tasks: one consumer without a group, assigned (not subscribed)
// the changelog partitions of their stores and reading them
// read_committed, applies every record through a state.Restorer and
// commits with a checkpoint about once a second. The checkpoints are the
// offset sums the member's subscription reports, so the leader sees how
// far behind each replica is; once every warmup is within
// acceptable.recovery.lag the feeder asks for a rebalance (its
// subscription changed), which promotes them.
//
// A replica is never kept of a task active here: the runner's restore
// releases a replica before it restores the task (only the tail is then
// read), and reconcile skips active tasks (a task whose revocation is
// still pending becomes a replica once it is closed).
type standbyFeeder struct {
	r *kafkaRunner

	// wantMu guards want and nudged; the feed loop takes only it, never
	// mu (apply waits for the loop while holding mu). Order: mu, then
	// wantMu.
	wantMu sync.Mutex
	want   Assignment // from the last assignment
	nudged bool       // a rebalance was asked for the current warmups

	mu     sync.Mutex // guards the fields below
	roles  map[physical.TaskID]TaskRole
	parts  map[tp]*standbyPart
	cl     *kgo.Client
	cancel context.CancelFunc
	done   chan struct{}

	feedErrs feedErrors // standby_retry.go
}

// standbyPart is one changelog partition fed into a local store.
type standbyPart struct {
	id   state.StoreID
	task physical.TaskID
	rs   state.Restorer
	// layout: the store's layoutOptions, for every Restorer of it.
	layout []state.StoreOption
	next   atomic.Int64 // next offset to apply
	// committed is the next offset after what the store committed: what
	// a pull query reading the replica sees (it reads committed state).
	committed atomic.Int64
	end       atomic.Int64 // the partition's last stable offset as last fetched (-1: unknown)
}

// lag is how many offsets the replica misses, -1 when unknown: counted
// from what it committed, not what it applied, since a standby read (and
// a promotion) sees only that; a replica reported caught up while its
// last second of records was applied but not committed answered pull
// queries without them (issue 16, point 15).
func (p *standbyPart) lag() int64 {
	end := p.end.Load()
	if end < 0 {
		return -1
	}
	return max(end-p.committed.Load(), 0)
}

// standbyCommitEvery is how often replicas commit what they applied.
const standbyCommitEvery = time.Second

func newStandbyFeeder(r *kafkaRunner) *standbyFeeder {
	return &standbyFeeder{r: r, roles: map[physical.TaskID]TaskRole{}, parts: map[tp]*standbyPart{}}
}

// setAssignment records the standbys and warmups of a new assignment
// (from the balancer, in the client's goroutine: no blocking); the runner
// loop's next reconcile applies it.
func (f *standbyFeeder) setAssignment(ma Assignment) {
	f.wantMu.Lock()
	f.want, f.nudged = ma, false
	f.wantMu.Unlock()
}

// reconcile makes the replicas those of the last assignment, less the
// tasks active here. It is cheap when nothing changed.
func (f *standbyFeeder) reconcile() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.wantMu.Lock()
	want := f.want
	f.wantMu.Unlock()
	desired := map[physical.TaskID]TaskRole{}
	for _, k := range want.Standby {
		desired[k] = RoleStandby
	}
	for _, k := range want.Warmup {
		desired[k] = RoleWarmup
	}
	for k := range desired {
		if f.r.tasks.state(k) != taskClosed {
			delete(desired, k)
		}
	}
	f.apply(desired)
}

// release stops the replica of task k (the runner is about to restore
// it as active); its store keeps what was applied, with a checkpoint.
func (f *standbyFeeder) release(k physical.TaskID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.roles[k]; !ok {
		return
	}
	desired := maps.Clone(f.roles)
	delete(desired, k)
	f.apply(desired)
}

// close stops every replica.
func (f *standbyFeeder) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.apply(map[physical.TaskID]TaskRole{})
}

// apply moves to the desired replicas; f.mu is held. The consumer is
// made anew when the set of tasks changes.
func (f *standbyFeeder) apply(desired map[physical.TaskID]TaskRole) {
	same := len(desired) == len(f.roles)
	for k := range desired {
		if _, ok := f.roles[k]; !ok {
			same = false
		}
	}
	f.roles = desired
	if same {
		return
	}
	f.stopLoop()
	for key, p := range f.parts {
		if _, ok := desired[p.task]; !ok {
			if err := p.rs.Done(); err != nil {
				f.r.q.Logger.Warn("standby replica: final commit failed", "query", f.r.q.ID, "store", p.id.String(), "err", err)
			}
			delete(f.parts, key)
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(desired), compareTasks) {
		if !f.open(k) {
			delete(f.roles, k) // the next reconcile tries again
		}
	}
	f.startLoop()
}

// open starts feeding the stores of task k from their checkpoints (from
// the beginning, wiped, without one). It fails (false, the task's parts
// closed again) while a store is still open, e.g. by the task that was
// active here a moment ago.
func (f *standbyFeeder) open(k physical.TaskID) bool {
	q := f.r.q
	for _, spec := range q.Topology.SubTopologies[k.SubTopology].Stores {
		key := tp{spec.Changelog, k.Partition}
		if _, ok := f.parts[key]; ok {
			continue
		}
		id := state.StoreID{App: q.AppID, Name: spec.Name, Partition: k.Partition}
		from, ok := q.DB.Checkpointed(id)
		if !ok {
			if err := q.DB.Wipe(id); err != nil {
				f.closeTask(k)
				return false
			}
			from = 0
		}
		layout := layoutOptions(spec)
		rs := q.DB.Restorer(id, layout...)
		if err := rs.Commit(); err != nil { // the claim failed: the store is open
			f.closeTask(k)
			return false
		}
		p := &standbyPart{id: id, task: k, rs: rs, layout: layout}
		p.next.Store(from)
		p.committed.Store(from)
		p.end.Store(-1)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if end, err := f.r.k.EndOffset(ctx, spec.Changelog, k.Partition); err == nil {
			p.end.Store(end)
		}
		cancel()
		f.parts[key] = p
	}
	return true
}

// closeTask closes the parts of task k opened so far.
func (f *standbyFeeder) closeTask(k physical.TaskID) {
	for key, p := range f.parts {
		if p.task == k {
			_ = p.rs.Done()
			delete(f.parts, key)
		}
	}
}

// startLoop starts a consumer of the replicas' changelog partitions.
func (f *standbyFeeder) startLoop() {
	if len(f.parts) == 0 {
		return
	}
	offsets := map[string]map[int32]kgo.Offset{}
	for key, p := range f.parts {
		if offsets[key.topic] == nil {
			offsets[key.topic] = map[int32]kgo.Offset{}
		}
		offsets[key.topic][key.partition] = kgo.NewOffset().At(p.next.Load())
	}
	// Standby replicas are fed by the restore consumer, as in Kafka Streams.
	cl, err := f.r.k.Client(append([]kgo.Opt{kgo.ConsumePartitions(offsets), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.KeepControlRecords()}, f.r.q.Config.RestoreClients...)...)
	if err != nil {
		f.feedErrs.record(err)
		f.r.q.Logger.Warn("standby replicas: no consumer; the next reconcile retries", "query", f.r.q.ID, "err", err)
		for k := range f.roles { // closed: the next reconcile opens them again
			f.closeTask(k)
		}
		f.roles = map[physical.TaskID]TaskRole{}
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.cl, f.cancel, f.done = cl, cancel, make(chan struct{})
	go f.loop(ctx, cl, maps.Clone(f.parts), f.done)
}

func (f *standbyFeeder) stopLoop() {
	if f.cl == nil {
		return
	}
	f.cancel()
	<-f.done
	f.cl.Close()
	f.cl = nil
}

// loop applies fetched changelog records until ctx ends.
func (f *standbyFeeder) loop(ctx context.Context, cl *kgo.Client, parts map[tp]*standbyPart, done chan struct{}) {
	defer close(done)
	last := time.Now()
	var retry feedBackoff
	for ctx.Err() == nil {
		pctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		fs := cl.PollFetches(pctx)
		cancel()
		if ctx.Err() != nil {
			break
		}
		if err := FetchErr(fs); err != nil {
			f.feedErrs.record(err)
			f.r.q.Logger.Warn("standby replicas: fetch error", "query", f.r.q.ID, "err", err)
		}
		if err := applyFetches(fs, parts, f.r.q.ReplicaFault); err != nil {
			if !f.retryAfter(ctx, cl, parts, &retry, err) {
				break
			}
			continue
		}
		retry.reset()
		if time.Since(last) >= standbyCommitEvery {
			last = time.Now()
			// A failed commit is retried as a failed apply is: what
			// was applied since the last commit went with it.
			if err := f.commit(parts); err != nil {
				if !f.retryAfter(ctx, cl, parts, &retry, err) {
					break
				}
				continue
			}
			f.nudgeIfCaughtUp(parts)
		}
	}
	_ = f.commit(parts) // each failure is logged; the next feeder starts from the checkpoints
}

// applyFetches applies the fetched records to their stores, each after
// the fault hook (WithReplicaFault) if any. A partition's position stops
// at the record that failed.
func applyFetches(fs kgo.Fetches, parts map[tp]*standbyPart, fault func(string, int32, int64) error) error {
	var err error
	fs.EachPartition(func(fp kgo.FetchTopicPartition) {
		p := parts[tp{fp.Topic, fp.Partition}]
		if p == nil || err != nil {
			return
		}
		end := fp.LastStableOffset
		if end < 0 {
			end = fp.HighWatermark
		}
		if end >= 0 {
			p.end.Store(end)
		}
		for _, rec := range fp.Records {
			if !rec.Attrs.IsControl() {
				if fault != nil {
					err = fault(p.id.Name, p.id.Partition, rec.Offset)
				}
				if err == nil {
					err = p.rs.Restore(rec.Key, rec.Value, rec.Timestamp.UnixMilli(), rec.Offset)
				}
				if err != nil {
					return
				}
			}
			p.next.Store(rec.Offset + 1)
		}
	})
	return err
}

// commit commits every replica's applied records; it returns the first
// failure (each is logged).
func (f *standbyFeeder) commit(parts map[tp]*standbyPart) error {
	var first error
	for _, p := range parts {
		next := p.next.Load() // the loop's goroutine is the one applying
		if err := p.rs.Commit(); err != nil {
			f.r.q.Logger.Warn("standby replica: commit failed", "query", f.r.q.ID, "store", p.id.String(), "err", err)
			if first == nil {
				first = err
			}
			continue
		}
		p.committed.Store(next)
	}
	return first
}

// nudgeIfCaughtUp asks for a rebalance, once per assignment, when every
// warmup is within acceptable.recovery.lag: the new offset sums in this
// member's subscription let the leader promote them.
func (f *standbyFeeder) nudgeIfCaughtUp(parts map[tp]*standbyPart) {
	f.wantMu.Lock()
	warm := f.want.Warmup
	if f.nudged || len(warm) == 0 {
		f.wantMu.Unlock()
		return
	}
	lag := map[physical.TaskID]int64{}
	for _, p := range parts {
		if l := p.lag(); l < 0 || lag[p.task] < 0 {
			lag[p.task] = -1
		} else {
			lag[p.task] += l
		}
	}
	for _, k := range warm {
		if l, ok := lag[k]; !ok || l < 0 || l > f.r.q.Config.AcceptableLag {
			f.wantMu.Unlock()
			return
		}
	}
	f.nudged = true
	f.wantMu.Unlock()
	f.r.q.Logger.Info("warmup replicas caught up; asking for a rebalance", "query", f.r.q.ID, "warmup", taskNames(warm))
	f.r.forceRebalance()
}

// assignments lists the replicas with their stores' lag.
func (f *standbyFeeder) assignments() []TaskAssignment {
	f.mu.Lock()
	defer f.mu.Unlock()
	byTask := map[physical.TaskID]*TaskAssignment{}
	for k, role := range f.roles {
		byTask[k] = &TaskAssignment{Task: k.String(), Role: role}
	}
	for _, p := range f.parts {
		a := byTask[p.task]
		if a == nil {
			continue
		}
		a.Stores = append(a.Stores, StoreLag{Store: p.id.Name, Partition: p.id.Partition, Position: p.committed.Load(), End: p.end.Load(), Lag: p.lag()})
	}
	var out []TaskAssignment
	for _, k := range slices.SortedFunc(maps.Keys(byTask), compareTasks) {
		out = append(out, *byTask[k])
	}
	return out
}

// hadReplicas reports whether the last assignment gave replicas.
func (f *standbyFeeder) hadReplicas() bool {
	f.wantMu.Lock()
	defer f.wantMu.Unlock()
	return len(f.want.Standby)+len(f.want.Warmup) > 0
}
