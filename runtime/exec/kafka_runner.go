package exec

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/state"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// kafkaRunner runs one persistent query as a member of the consumer group
// named by its application id. The group reads every source topic of the
// topology (inputs and repartition topics; the range balancer keeps equal
// partitions of co-partitioned topics together); each assigned partition
// gets a task, whose stores are restored from their changelogs before it
// processes anything. A poll loop feeds records to tasks (spread over
// num.stream.threads goroutines, one task on one goroutine at a time),
// and every commit.interval.ms the stores are flushed, the producer is
// flushed, the stores are checkpointed and then the offsets of processed
// records are committed (at-least-once: outputs and changelogs are
// acknowledged before the input offsets that produced them are committed).
// A stateful task's outputs are held until its cached store writes are
// queued to their changelogs ahead of them, at the commit or once they
// fill the cache's bound (held_output.go), so a crash never restores
// state older than its sink shows.
//
// A fault the runner cannot get past (a store that cannot be restored, a
// task that fails, an output or changelog write the broker refused, a
// store that cannot be flushed) is fatal: the query goes to ERROR with the
// reason, the poll loop ends and the client leaves the group, so the
// partitions go to another member rather than stay with one that skips
// their records.
//
// That is at_least_once; under exactly_once_v2 the same tasks run inside
// Kafka transactions instead (kafka_runner_eos.go).
//
//	poll ──► tasks (per partition, N workers) ──► produce (async)
//	  ▲                                              │
//	  └ commit offsets ◄ checkpoint ◄ flush ◄ every interval
type kafkaRunner struct {
	k        *Kafka
	q        *Query
	cl       *kgo.Client
	tasks    *taskSet
	interval time.Duration
	workers  int
	cancel   context.CancelFunc
	done     chan struct{}

	// The promises of outputs and changelog writes, method values made
	// once rather than per record.
	emitted      func(*kgo.Record, error)
	changelogged func(*kgo.Record, error)
	// changelogRecs recycles changelog records once acknowledged, with
	// their buffers.
	changelogRecs changelogRecords
	// outRecs recycles output and repartition records the same way:
	// one franz-go record (~200 bytes) and its bytes per record a task
	// emits.
	outRecs outRecords

	mu        sync.Mutex            // guards the maps below, emitErr and failed
	processed map[tp]int64          // next offset to commit
	committed map[tp]int64          // last committed offset
	inputs    map[tp]*inputPosition // each input partition's position and end (input_lag.go)
	produced  map[tp]int64          // next offset of each changelog partition written
	emitErr   error
	failed    error // the fatal error that ends the loop
	// stopErr is why the last commit, when the runner stopped, left
	// offsets uncommitted (Stop returns it).
	stopErr error
	// offsetErr is the answer to the last offset commit (nil: accepted).
	offsetErr error

	eos *eosSession // under exactly_once_v2, nil otherwise

	groups *taskGroups // multi-input tasks' records, released in time order (partition_group.go)

	restoring map[physical.TaskID]*pendingRestore // guarded by mu (restore_async.go)
	// fresh holds the tasks started here whose first records are yet to
	// be processed (under exactly_once_v2, their first transaction ends
	// at once: restore_async.go); guarded by mu.
	fresh   map[physical.TaskID]bool
	standby *standbyFeeder // standby and warmup replicas (standby.go)
	probe   *time.Timer    // a pending probing rebalance, guarded by mu
	// recoveries counts the errors recovered from since the last
	// commit (error_class.go).
	recoveries int
	pause      pauseCtl // PAUSE and RESUME (pause.go)
	drain      drainCtl // StopDrained (drain.go)
}

type tp struct {
	topic     string
	partition int32
}

// Start implements Cluster.
func (k *Kafka) Start(q *Query) (Runner, error) {
	if q.Config.ExactlyOnce {
		return k.startEOS(q)
	}
	r := newKafkaRunner(k, q)
	envs := q.envs(r, r)
	envs.hold, envs.record, envs.lend = r.produceOutput, r.outRecord, r.Lend
	r.tasks = newTaskSet(q.Topology, envs.build)
	if err := r.newClient(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go r.loop(ctx)
	return r, nil
}

// newClient joins the group with a new at-least-once client.
func (r *kafkaRunner) newClient() error {
	cl, err := r.k.Client(append(r.clientOpts(),
		kgo.OnPartitionsAssigned(r.assigned),
		kgo.OnPartitionsRevoked(r.revoked),
		kgo.OnPartitionsLost(r.lost))...)
	if err != nil {
		return err
	}
	r.setClient(cl)
	return nil
}

func newKafkaRunner(k *Kafka, q *Query) *kafkaRunner {
	r := &kafkaRunner{k: k, q: q, processed: map[tp]int64{}, committed: map[tp]int64{}, produced: map[tp]int64{},
		inputs:   map[tp]*inputPosition{},
		interval: q.Config.CommitInterval, workers: max(1, q.Config.Threads), done: make(chan struct{})}
	r.emitted, r.changelogged = r.onEmitted, r.onChangelogged
	r.drain.done = make(chan struct{})
	r.groups = newTaskGroups(q.Topology, q.Config.MaxTaskIdle)
	r.standby = newStandbyFeeder(r)
	if q.Paused {
		r.pause.move(pausing)
	}
	return r
}

// clientOpts are the options of the query's client under either
// guarantee, rebalance callbacks aside; the cluster's base options (seed
// brokers, security, no compression) come first, as Kafka.Client adds
// them.
func (r *kafkaRunner) clientOpts() []kgo.Opt {
	reset := kgo.NewOffset().AtEnd()
	if r.q.Config.FromEarliest {
		reset = kgo.NewOffset().AtStart()
	}
	return append(append(r.k.baseOpts(),
		kgo.ConsumerGroup(r.q.AppID),
		kgo.ConsumeTopics(r.tasks.topics()...),
		kgo.ConsumeResetOffset(reset),
		kgo.AdjustFetchOffsetsFn(internalFromStart(r.q.Topology)),
		// Range only while a member of an older version, which knows
		// no task balancer, is in the group.
		kgo.Balancers(r.q.Balancer(r.balancerHooks()),
			syncHook{kgo.RangeBalancer(), r.synced}),
		kgo.SessionTimeout(r.q.Config.SessionTimeout),
		kgo.HeartbeatInterval(min(3*time.Second, r.q.Config.SessionTimeout/3)),
		kgo.DisableAutoCommit(),
		kgo.BlockRebalanceOnPoll(),
		kgo.RecordPartitioner(Partitioner()),
		kgo.ProducerLinger(5*time.Millisecond),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		// Transaction markers come with the records, so the processed
		// offsets (committed, and the tasks' positions) step over a
		// marker as Kafka Streams' consumer position does, instead of
		// stopping one short of a transactional topic's end (KAFKA-6607);
		// the tasks skip them.
		kgo.KeepControlRecords(),
	), r.q.Config.Clients...)
}

// assigned creates the tasks of newly assigned partitions (created →
// restoring → running); their stores are restored in the background
// while their inputs are paused (restore_async.go). A partition that
// cannot be restored is fatal: without its task its records would be
// skipped.
func (r *kafkaRunner) assigned(_ context.Context, cl *kgo.Client, parts map[string][]int32) {
	r.startRestores(cl, parts)
}

// revoked commits what the revoked partitions processed, unless the
// runner failed (then nothing more is committed: the next owner
// reprocesses from the last commit).
func (r *kafkaRunner) revoked(ctx context.Context, cl *kgo.Client, parts map[string][]int32) {
	r.cancelRestores(cl, parts)
	if r.failure() == nil {
		if err := r.commit(ctx); err != nil {
			r.q.Logger.Warn("commit before revocation failed; the next owner reprocesses from the last commit",
				"query", r.q.ID, "err", err)
		}
	}
	r.drop(parts)
}

// fatal fails the query with err, saying why and what to do
// (error_class.go), and ends the poll loop (first error wins).
func (r *kafkaRunner) fatal(err error) {
	err = failure(r.q.ID, err)
	r.mu.Lock()
	first := r.failed == nil
	if first {
		r.failed = err
	}
	r.mu.Unlock()
	if first {
		r.q.Observer.Failed(err)
	}
}

func (r *kafkaRunner) failure() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

func (r *kafkaRunner) lost(_ context.Context, cl *kgo.Client, parts map[string][]int32) {
	r.cancelRestores(cl, parts)
	r.drop(parts)
}

func (r *kafkaRunner) drop(parts map[string][]int32) {
	for topic, ps := range parts {
		for _, p := range ps {
			r.tasks.drop(topic, p)
			r.groups.drop(r.tasks.keyOf(topic, p))
			r.mu.Lock()
			delete(r.fresh, r.tasks.keyOf(topic, p))
			delete(r.processed, tp{topic, p})
			delete(r.committed, tp{topic, p})
			delete(r.inputs, tp{topic, p})
			r.mu.Unlock()
		}
	}
}

// Emit implements physical.Emitter: records are produced asynchronously;
// the first failure fails the query at the next commit.
func (r *kafkaRunner) Emit(rec *physical.OutRecord) {
	r.produce(r.outRecord(rec), r.emitted)
}

// CopiesBytes implements physical.BytesCopier: outRecord copies a
// record's bytes.
func (r *kafkaRunner) CopiesBytes() bool { return true }

// Lend implements physical.BufferLender: the sink encodes into the
// buffer of the record Emit will produce (outRecords.lend).
func (r *kafkaRunner) Lend(n int) physical.Loan { return r.outRecs.lend(n) }

// outRecord converts rec into a franz-go record from the pool, its bytes
// copied into the record's buffer (the emitted promise puts both back).
func (r *kafkaRunner) outRecord(rec *physical.OutRecord) *kgo.Record {
	return r.outRecs.get(rec)
}

// onEmitted notes an output's failure, then recycles the record with its
// buffer: the client is done with it once it calls back.
func (r *kafkaRunner) onEmitted(kr *kgo.Record, err error) {
	r.onProduced(kr, err)
	r.outRecs.put(kr)
}

// produceOutput produces an output record a stateful task held back
// (heldOutput).
func (r *kafkaRunner) produceOutput(kr *kgo.Record) { r.produce(kr, r.emitted) }

// sendChangelog implements changelogSink, remembering how far each
// changelog partition has been written for the store checkpoints.
func (r *kafkaRunner) sendChangelog(topic string, p int32, key, value []byte, ts int64) {
	r.produce(r.changelogRecs.get(topic, p, key, value, ts), r.changelogged)
}

// changelogRecord fills kr, zero, with a store write as a record for its
// changelog partition. Key and value are copied, into one allocation: the
// store may reuse them. An empty key stays null, a nil value is a
// tombstone. ts (epoch millis) is the record's timestamp; with
// state.NoTimestamp the client stamps it.
func changelogRecord(kr *kgo.Record, topic string, p int32, key, value []byte, ts int64) *kgo.Record {
	return changelogRecordIn(kr, make([]byte, len(key)+len(value)), topic, p, key, value, ts)
}

// changelogRecordIn is changelogRecord copying into buf, of the key's and
// value's length together.
func changelogRecordIn(kr *kgo.Record, buf []byte, topic string, p int32, key, value []byte, ts int64) *kgo.Record {
	copy(buf, key)
	kr.Topic, kr.Partition, kr.Context = topic, p, manualCtx
	if ts != state.NoTimestamp {
		kr.Timestamp = time.UnixMilli(ts)
	}
	if len(key) > 0 {
		kr.Key = buf[:len(key):len(key)]
	}
	if value != nil {
		kr.Value = buf[len(key):]
		copy(kr.Value, value)
	}
	return kr
}

// onChangelogged notes how far the record's partition is written, then
// recycles the record: the client is done with it once it calls back.
func (r *kafkaRunner) onChangelogged(kr *kgo.Record, err error) {
	r.onProduced(kr, err)
	if err == nil {
		r.mu.Lock()
		k := tp{kr.Topic, kr.Partition}
		r.produced[k] = max(r.produced[k], kr.Offset+1)
		r.mu.Unlock()
	}
	r.changelogRecs.put(kr)
}

func (r *kafkaRunner) onProduced(kr *kgo.Record, err error) {
	if r.eos != nil && err == nil {
		r.eos.noteAcked(kr)
	}
	if err != nil {
		r.mu.Lock()
		if r.emitErr == nil {
			r.emitErr = err
		}
		r.mu.Unlock()
	}
}

// loop polls and processes until the runner stops or fails; either way it
// closes the client, which leaves the group. A stopping runner commits
// first; a failed one does not.
func (r *kafkaRunner) loop(ctx context.Context) {
	defer close(r.done)
	defer func() { r.cl.Close() }() // the last client (recoverFrom makes new ones)
	last := time.Now()
	for ctx.Err() == nil && r.failure() == nil {
		due := time.Since(last) >= r.interval
		r.standby.reconcile()
		err := r.round(ctx, due)
		r.cl.AllowRebalance()
		if err != nil {
			if err = r.recoverFrom(ctx, err); err != nil {
				r.fatal(err)
				return
			}
			continue
		}
		if due {
			last, r.recoveries = time.Now(), 0
		}
	}
	if r.failure() != nil {
		return
	}
	r.finalCommit()
}

// finalCommit commits what the stopping runner processed. Offsets the
// coordinator refused are not lost silently: the error goes to the
// query's errors (Observer.Recovered) and Stop returns it; nothing else
// is needed, since the next start resumes from the offsets last
// committed and processes the records after them again.
func (r *kafkaRunner) finalCommit() {
	if err := r.commit(context.Background()); err != nil {
		r.fatal(err)
		return
	}
	r.mu.Lock()
	refused := r.offsetErr
	r.mu.Unlock()
	dirty := r.dirtyOffsets()
	if len(dirty) == 0 {
		return
	}
	if refused == nil {
		refused = errors.New("no answer")
	}
	err := fmt.Errorf("query %s: the last commit before it stopped was refused by the group coordinator (external: %w); "+
		"the input offsets %s stay at their last commit, so its next start processes the records after them again "+
		"(at_least_once: their outputs may repeat; nothing is lost)", r.q.ID, refused, describeOffsets(dirty))
	r.mu.Lock()
	r.stopErr = err
	r.mu.Unlock()
	r.q.Logger.Error("last commit failed", "query", r.q.ID, "err", err)
	r.q.Observer.Recovered(err)
}

// describeOffsets lists offsets as topic[partition]@offset, sorted.
func describeOffsets(offsets map[string]map[int32]kgo.EpochOffset) string {
	var parts []string
	for topic, ps := range offsets {
		for p, o := range ps {
			parts = append(parts, fmt.Sprintf("%s[%d]@%d", topic, p, o.Offset))
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

// round polls once and processes what came; commitDue adds a commit. It
// returns a fatal error; a stopping runner (ctx ended) is not one.
func (r *kafkaRunner) round(ctx context.Context, commitDue bool) error {
	if err := r.drainRound(ctx); err != nil && ctx.Err() == nil {
		return err
	}
	if r.syncPause() {
		return r.pausedRound(ctx)
	}
	pctx, cancel := context.WithTimeout(ctx, r.groups.pollTimeout(r.interval, time.Now()))
	r.setPollWake(cancel)
	fs := r.cl.PollRecords(pctx, r.q.Config.maxPoll())
	r.setPollWake(nil)
	cancel()
	if ctx.Err() != nil || r.failure() != nil {
		return nil
	}
	if err := FetchErr(fs); err != nil {
		r.q.Logger.Warn("fetch error", "query", r.q.ID, "err", err)
	}
	if err := r.process(fs); err != nil {
		return err
	}
	if err := r.punctuate(); err != nil {
		return err
	}
	if !commitDue {
		return nil
	}
	if err := r.commit(ctx); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}

// process runs the fetched records through their tasks, one task per
// worker at a time (workUnits).
func (r *kafkaRunner) process(fs kgo.Fetches) error {
	r.noteFetches(fs)
	units := r.workUnits(fs)
	if len(units) == 0 {
		return nil
	}
	errs := make([]error, len(units))
	sem := make(chan struct{}, r.workers)
	var wg sync.WaitGroup
	for i := range units {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			errs[i] = units[i]()
		}(i)
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (r *kafkaRunner) processPartition(p kgo.FetchTopicPartition) error {
	t := r.tasks.lookup(p.Topic, p.Partition)
	if t == nil {
		// Revoked meanwhile (its records were not marked processed, so
		// the next owner reads them), or never created, which assigned
		// made fatal.
		return nil
	}
	if err := r.processRecords(t, p); err != nil {
		return err
	}
	if err := r.releaseIfFull(r.tasks.keyOf(p.Topic, p.Partition), t); err != nil {
		return err
	}
	r.mu.Lock()
	r.processedTo(tp{p.Topic, p.Partition}, p.Records[len(p.Records)-1].Offset+1)
	if len(r.fresh) > 0 {
		r.firstRecords(r.tasks.keyOf(p.Topic, p.Partition))
	}
	r.mu.Unlock()
	return nil
}

// processRecords runs p's records through task t. Query.Processed is
// added to once for the partition's records (not per record: the
// workers' tasks would contend for the counter's cache line).
func (r *kafkaRunner) processRecords(t *taskEntry, p kgo.FetchTopicPartition) error {
	var in physical.InRecord
	n := int64(0)
	defer func() { r.q.Processed.Add(n) }()
	for _, rec := range p.Records {
		if rec.Attrs.IsControl() {
			continue
		}
		fromKgo(rec, &in)
		if err := t.task.Process(&in); err != nil {
			k := r.tasks.keyOf(p.Topic, p.Partition)
			return errors.Join(&taskFailure{task: k, err: err}, r.tasks.move(k, taskError))
		}
		n++
	}
	return nil
}

// commit flushes stores and outputs, checkpoints the stores and then
// commits the processed input offsets. An error means nothing was
// committed: a store that could not flush, a producer flush cut short by
// ctx, or a record the broker refused since the last commit. A commit
// that sent offsets is timed (Query.Commits).
func (r *kafkaRunner) commit(ctx context.Context) error {
	start := time.Now()
	if err := r.releaseOutputs(); err != nil {
		return err
	}
	for _, t := range r.tasks.all() {
		if t.stores == nil {
			continue
		}
		if err := t.stores.flush(); err != nil {
			return err
		}
	}
	if err := r.cl.Flush(ctx); err != nil {
		return fmt.Errorf("flushing the producer: %w", err)
	}
	r.mu.Lock()
	err := r.emitErr
	r.mu.Unlock()
	if err != nil {
		return fmt.Errorf("writing an output or changelog record: %w", err)
	}
	r.checkpoint()
	if r.commitOffsets(ctx) && r.q.Commits != nil {
		r.q.Commits.Observe(time.Since(start))
	}
	return nil
}

// commitOffsets commits the processed offsets not yet committed. Offsets
// the coordinator did not accept (ctx ended, a rebalance) stay dirty, so
// the next commit, at the latest the final one when the runner stops,
// sends them again. It reports whether there were offsets to send.
func (r *kafkaRunner) commitOffsets(ctx context.Context) bool {
	offsets := r.dirtyOffsets()
	if len(offsets) == 0 {
		return false
	}
	r.cl.CommitOffsetsSync(ctx, offsets, func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
		if err == nil {
			err = commitRespErr(resp)
		}
		r.mu.Lock()
		r.offsetErr = err
		r.mu.Unlock()
		if err != nil {
			if ctx.Err() == nil {
				r.q.Logger.Warn("commit failed", "query", r.q.ID, "err", err)
			}
			return
		}
		r.markCommitted(offsets)
	})
	return true
}

// producedOffset is the offset of the last record produced to a
// changelog partition (ok false: none yet), what a store checkpoints.
func (r *kafkaRunner) producedOffset(topic string, p int32) (int64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	off, ok := r.produced[tp{topic, p}]
	return off, ok
}

func (r *kafkaRunner) checkpoint() {
	for _, t := range r.tasks.all() {
		if t.stores != nil {
			if err := t.stores.checkpoint(r.producedOffset); err != nil {
				r.q.Logger.Warn("checkpoint failed", "query", r.q.ID, "err", err)
			}
		}
	}
}

// dirtyOffsets returns the processed offsets not yet committed.
func (r *kafkaRunner) dirtyOffsets() map[string]map[int32]kgo.EpochOffset {
	r.mu.Lock()
	defer r.mu.Unlock()
	offsets := map[string]map[int32]kgo.EpochOffset{}
	for k, off := range r.processed {
		if r.committed[k] == off {
			continue
		}
		if offsets[k.topic] == nil {
			offsets[k.topic] = map[int32]kgo.EpochOffset{}
		}
		offsets[k.topic][k.partition] = kgo.EpochOffset{Epoch: -1, Offset: off}
	}
	return offsets
}

// markCommitted records offsets the group coordinator accepted. A
// partition revoked meanwhile (no longer processed here) is not
// recorded.
func (r *kafkaRunner) markCommitted(offsets map[string]map[int32]kgo.EpochOffset) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for topic, ps := range offsets {
		for p, o := range ps {
			if _, ok := r.processed[tp{topic, p}]; ok {
				r.committed[tp{topic, p}] = o.Offset
			}
		}
	}
}

// Stop implements Runner: the loop ends with a last commit; the error
// says why that commit left input offsets uncommitted (finalCommit).
func (r *kafkaRunner) Stop() error {
	r.cancel()
	<-r.done
	r.cancelRestores(nil, nil)
	r.stopProbe()
	r.standby.close()
	r.q.Observer.Stopped()
	r.tasks.closeAll()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopErr
}

func commitRespErr(resp *kmsg.OffsetCommitResponse) error {
	if resp == nil {
		return nil
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return err
			}
		}
	}
	return nil
}

// punctuate gives every task the wall-clock time (between polls, so no
// task is being processed), when window.close.idle.ms asks for it.
func (r *kafkaRunner) punctuate() error {
	if r.q.Config.IdleCloseMs <= 0 {
		return nil
	}
	now := time.Now().UnixMilli()
	for _, t := range r.tasks.all() {
		if err := t.task.Punctuate(now); err != nil {
			return err
		}
	}
	return nil
}
