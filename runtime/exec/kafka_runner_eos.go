package exec

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Under processing.guarantee=exactly_once_v2 the runner is one
// transactional session (kgo.GroupTransactSession) per query and process,
// Kafka Streams' EOS v2: every record polled is processed inside one
// transaction that carries the outputs and repartition records, the
// changelog writes of every task and the input offsets, with each task's
// stream time in the offsets' metadata. Stores are transactional
// (state.Transactional): Pebble receives a transaction's writes, with the
// checkpoints, only once Kafka committed it.
//
//	Begin ─► poll ─► tasks ─► … every commit.interval.ms:
//	  flush caches (their changelog records join the transaction)
//	  ─► flush producer ─► End(TryCommit, or TryAbort after a failed produce)
//	     committed: (no input offsets in it: read one record back,
//	                read_committed, eos_end.go; missing: rejoin)
//	                commit stores + checkpoints to Pebble
//	     aborted:   the session rewound the consumer; rebuild every task
//	                from Pebble (the last committed state)
//	  ─► AllowRebalance (revocations happen between transactions)
//
// A rebalance waiting for AllowRebalance, or a task that just started,
// ends the open transaction at once instead of at the interval; a member
// in a join holds its transaction open until the sync (kgo holds the
// commit meanwhile); planned rebalances are joined by every member at
// once (rebalance_rounds.go). End never waits forever (eos_end.go): a
// member the group lost would otherwise wait on a rebalance it holds
// back itself; after endStall that rebalance is let through and the
// transaction aborts, and an End past eosEndTimeout (outcome unknown) is
// a session error, resolved by fencing, rejoining and restoring.
//
// The transactional id is <app id>-<process id>, the process id kept in
// the data directory: a restarted process fences (and so aborts) its dead
// predecessor's open transaction before it restores, rather than waiting
// for the transaction timeout. It is also the member's static group
// instance id, so a restart after a crash takes the dead member's place at
// once instead of waiting out its session timeout; a runner that stops
// leaves the group explicitly (a static member's Close does not). A session whose End fails (fenced, or a
// fatal producer error) is closed and made anew; the new member restores
// its tasks from the checkpoints and the committed changelog tail.
type eosSession struct {
	txnID string
	sess  *kgo.GroupTransactSession

	// A transaction begins when there is something to put in it: records
	// polled, or a first record produced (a punctuation's). An idle
	// query begins none, so it ends none: franz-go ends a transaction
	// that committed no offsets only after a 500 ms pause (its pre-KIP-447
	// path). A poll that brought only transaction markers (an aborted
	// upstream transaction's: a committed one's comes with its records)
	// begins one too, which carries nothing but the offset past them:
	// without it the group would stay one short of its inputs' ends
	// (never caught up, a consumer lag of 1), and records polled within
	// the commit interval join it (TestEOSStepsOverMarkersInItsTransactions).
	beginMu sync.Mutex
	open    atomic.Bool
	began   time.Time // guarded by beginMu
	// dropped: partitions were revoked or lost, which leaves the session
	// marked failed until its next End.
	dropped atomic.Bool
	// release: end the open transaction now, not at the commit interval
	// (a rebalance is due, or a task just started: rebalance_rounds.go).
	release atomic.Bool
	// blockedAt: since when a rebalance callback waits for AllowRebalance
	// (kgo's OnPartitionsCallbackBlocked; Unix nanoseconds, 0: none
	// waits); it sets release and wakes the poll.
	blockedAt atomic.Int64
	wakeMu    sync.Mutex
	wake      context.CancelFunc // cancels the poll in progress, if any
	// offsetsIn: the open transaction carries input offsets (its
	// TxnOffsetCommit had partitions: withStreamTimes). probe: one
	// record the open transaction's producer acknowledged. Both are
	// cleared when a transaction begins; confirmCommitted reads the
	// probe of a committed transaction without offsets back.
	offsetsIn atomic.Bool
	probe     atomic.Pointer[ackedRecord]
	// joining is when the member's current join began (Unix nanoseconds,
	// 0: not joining): from the revocation callback that ends a session
	// (revokedEOS) to the sync's assignment (the balancer's
	// ParseSyncAssignment; not OnPartitionsAssigned, which waits for
	// AllowRebalance).
	joining atomic.Int64

	mu        sync.Mutex
	committed map[physical.TaskID]int64 // each task's stream time as of the last commit
}

// eosTxnTimeout is Kafka Streams' transaction.timeout.ms under EOS: an
// open transaction of a dead member stalls read_committed readers at most
// this long.
const eosTxnTimeout = 10 * time.Second

func (k *Kafka) startEOS(q *Query) (Runner, error) {
	pid, err := q.DB.ProcessID()
	if err != nil {
		return nil, err
	}
	r := newKafkaRunner(k, q)
	r.eos = &eosSession{txnID: q.AppID + "-" + pid, committed: map[physical.TaskID]int64{}}
	envs := q.envs(r, r)
	envs.transactional, envs.startTime = true, r.startTime
	r.tasks = newTaskSet(q.Topology, envs.build)
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	if err := r.newSession(ctx); err != nil {
		cancel()
		return nil, err
	}
	go r.loopEOS(ctx)
	return r, nil
}

// newSession fences the transactional id (aborting a transaction a dead
// predecessor left open) and joins the group with a new session.
func (r *kafkaRunner) newSession(ctx context.Context) error {
	if err := r.k.fence(ctx, r.eos.txnID); err != nil {
		r.q.Logger.Warn("could not fence the transactional id; an open transaction of a previous run times out instead",
			"query", r.q.ID, "transactional.id", r.eos.txnID, "err", err)
	}
	sess, err := kgo.NewGroupTransactSession(append(r.clientOpts(),
		kgo.TransactionalID(r.eos.txnID),
		kgo.InstanceID(r.eos.txnID),
		kgo.TransactionTimeout(eosTxnTimeout),
		kgo.OnPartitionsAssigned(r.assignedEOS),
		kgo.OnPartitionsRevoked(r.revokedEOS),
		kgo.OnPartitionsLost(r.lostEOS),
		kgo.OnPartitionsCallbackBlocked(r.rebalanceWaits))...)
	if err != nil {
		return err
	}
	r.eos.sess = sess
	r.setClient(sess.Client())
	r.eos.dropped.Store(false) // the old session's
	return nil
}

// fence aborts any open transaction of txnID by initializing a producer
// id for it (the broker bumps the epoch and aborts, KIP-360).
func (k *Kafka) fence(ctx context.Context, txnID string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req := kmsg.NewPtrInitProducerIDRequest()
	req.TransactionalID = &txnID
	req.TransactionTimeoutMillis = int32(eosTxnTimeout / time.Millisecond)
	resp, err := req.RequestWith(ctx, k.cl)
	if err != nil {
		return err
	}
	return kerr.ErrorForCode(resp.ErrorCode)
}

// assignedEOS loads the stream times committed with the new partitions'
// offsets, then restores and creates their tasks.
func (r *kafkaRunner) assignedEOS(ctx context.Context, cl *kgo.Client, parts map[string][]int32) {
	r.q.Logger.Debug("partitions assigned", "query", r.q.ID, "partitions", fmt.Sprint(parts))
	r.eos.joining.Store(0)
	if err := r.loadStreamTimes(ctx); err != nil {
		r.fatal(fmt.Errorf("reading committed stream times: %w", err))
		return
	}
	r.assigned(ctx, cl, parts)
}

// revokedEOS closes the tasks of revoked partitions. They hold no
// pending work: revocations come between transactions (after End, at
// AllowRebalance). The session fails its next transaction only when
// something was revoked (kgo's rule for a cooperative session). A
// cooperative member revokes what it lost at the start of a session and
// calls the callback with nothing at the end of one, just before it
// joins: that empty call marks the member joining (rebalance_rounds.go).
func (r *kafkaRunner) revokedEOS(_ context.Context, cl *kgo.Client, parts map[string][]int32) {
	if len(parts) == 0 {
		r.q.Logger.Debug("group session ending; joining", "query", r.q.ID)
		r.eos.joining.CompareAndSwap(0, time.Now().UnixNano())
		return
	}
	r.q.Logger.Debug("partitions revoked", "query", r.q.ID, "partitions", fmt.Sprint(parts))
	r.eos.dropped.Store(true)
	r.cancelRestores(cl, parts)
	r.drop(parts)
}

// lostEOS closes the tasks of lost partitions; a transaction that saw
// the loss aborts anyway.
func (r *kafkaRunner) lostEOS(_ context.Context, cl *kgo.Client, parts map[string][]int32) {
	r.q.Logger.Debug("partitions lost", "query", r.q.ID, "partitions", fmt.Sprint(parts))
	r.eos.dropped.Store(true)
	r.cancelRestores(cl, parts)
	r.drop(parts)
}

// loadStreamTimes reads the group's committed offsets' metadata.
func (r *kafkaRunner) loadStreamTimes(ctx context.Context) error {
	offs, err := r.k.adm.FetchOffsets(ctx, r.q.AppID)
	if err != nil {
		return err
	}
	r.eos.mu.Lock()
	defer r.eos.mu.Unlock()
	offs.Each(func(o kadm.OffsetResponse) {
		if t, ok := parseStreamTime(o.Metadata); ok {
			k := physical.TaskID{SubTopology: r.tasks.subOf[o.Topic], Partition: o.Partition}
			if old, seen := r.eos.committed[k]; !seen || t > old {
				r.eos.committed[k] = t
			}
		}
	})
	return nil
}

const streamTimeMeta = "st="

func parseStreamTime(meta string) (int64, bool) {
	v, ok := strings.CutPrefix(meta, streamTimeMeta)
	if !ok {
		return 0, false
	}
	t, err := strconv.ParseInt(v, 10, 64)
	return t, err == nil
}

// startTime gives a new task the stream time committed for it, and resets
// its published stream time to it (an aborted transaction may have moved
// it on).
func (r *kafkaRunner) startTime(id physical.TaskID) *int64 {
	cell := r.q.StreamTimes.ForTask(id)
	r.eos.mu.Lock()
	t, ok := r.eos.committed[physical.TaskID{SubTopology: id.SubTopology, Partition: id.Partition}]
	r.eos.mu.Unlock()
	if !ok {
		cell.Store(-1)
		return nil
	}
	cell.Store(t)
	return &t
}

// withStreamTimes puts each task's stream time into the metadata of its
// partitions' offsets. It runs under the client's transaction lock: no
// blocking.
func (r *kafkaRunner) withStreamTimes(req *kmsg.TxnOffsetCommitRequest) error {
	if len(req.Topics) > 0 {
		r.eos.offsetsIn.Store(true)
	}
	for i := range req.Topics {
		t := &req.Topics[i]
		for j := range t.Partitions {
			p := &t.Partitions[j]
			id := physical.TaskID{SubTopology: r.tasks.subOf[t.Topic], Partition: p.Partition}
			if v := r.q.StreamTimes.ForTask(id).Load(); v >= 0 {
				meta := streamTimeMeta + strconv.FormatInt(v, 10)
				p.Metadata = &meta
			}
		}
	}
	return nil
}

// loopEOS runs transactions until the runner stops (committing the open
// one) or fails (aborting it).
func (r *kafkaRunner) loopEOS(ctx context.Context) {
	defer close(r.done)
	defer r.leaveGroup()
	for ctx.Err() == nil && r.failure() == nil {
		r.standby.reconcile()
		if err := r.roundEOS(ctx); err != nil {
			if err = r.recoverFrom(ctx, err); err != nil {
				r.abortFailed()
				r.fatal(err)
				return
			}
		}
	}
	if r.eos.open.Load() {
		if _, err := r.endTxn(context.Background(), r.failure() == nil); err != nil && r.failure() == nil {
			r.fatal(err)
		}
	}
}

// leaveGroup closes the session and takes the static member out of the
// group, so its partitions go to other members now.
func (r *kafkaRunner) leaveGroup() {
	r.eos.sess.CloseAllowingRebalance()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req := kmsg.NewPtrLeaveGroupRequest()
	req.Group = r.q.AppID
	m := kmsg.NewLeaveGroupRequestMember()
	m.InstanceID = &r.eos.txnID
	req.Members = append(req.Members, m)
	resp, err := req.RequestWith(ctx, r.k.cl)
	if err == nil {
		err = kerr.ErrorForCode(resp.ErrorCode)
		for _, m := range resp.Members {
			err = errors.Join(err, kerr.ErrorForCode(m.ErrorCode))
		}
	}
	if err != nil && !errors.Is(err, kerr.UnknownMemberID) {
		r.q.Logger.Warn("could not leave the group", "query", r.q.ID, "err", err)
	}
}

// roundEOS polls once and processes everything polled (the session
// commits the offsets of all polled records) in the open transaction,
// begun if need be, then ends it when the commit interval has passed. A
// round that polled and produced nothing has no transaction: it lets a
// rebalance through and is done.
func (r *kafkaRunner) roundEOS(ctx context.Context) error {
	paused := r.syncPause()
	timeout := r.groups.pollTimeout(r.interval, time.Now())
	if paused {
		timeout = r.pausedPollTimeout()
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	r.eos.setWake(cancel)
	fs := r.eos.sess.PollRecords(pctx, r.q.Config.maxPoll())
	r.eos.setWake(nil)
	cancel()
	if paused {
		// Nothing is processed, punctuated or begun (pause.go); the
		// transaction open before the pause ends now (Pause set release).
		r.unpolled(fs)
		fs = nil
	}
	if err := FetchErr(fs); err != nil && ctx.Err() == nil {
		r.q.Logger.Warn("fetch error", "query", r.q.ID, "err", err)
	}
	if r.failure() != nil {
		return r.failure()
	}
	if !r.eos.open.Load() && r.eos.dropped.Swap(false) {
		// Revoked during the poll: a transaction begun now would abort.
		// Reset the session first; it rewinds to the committed offsets,
		// so what was polled is fetched again.
		r.resetSession(ctx)
		r.eos.sess.AllowRebalance()
		return nil
	}
	if fs.NumRecords() > 0 {
		if err := r.eos.begin(); err != nil {
			return &sessionError{err}
		}
	}
	if !paused {
		if err := r.process(fs); err != nil {
			return err
		}
		if err := r.punctuate(); err != nil {
			return err
		}
	}
	if !r.eos.open.Load() {
		if err := r.takeEmitErr(); err != nil { // a punctuation's Begin failed
			return &sessionError{err}
		}
		r.allowRebalanceEOS(ctx)
		if paused {
			r.settle()
		}
		return nil
	}
	if ctx.Err() != nil || !r.eos.due(r.interval) {
		return nil
	}
	if err := r.flushCachedOutputs(); err != nil {
		return err // a task failed, as in process
	}
	committed, err := r.endTxn(ctx, true)
	if err != nil {
		return &sessionError{err}
	}
	if committed {
		r.recoveries = 0
	} else {
		r.q.Logger.Info("transaction aborted; its records are processed again", "query", r.q.ID)
	}
	r.allowRebalanceEOS(ctx)
	return nil
}

// begin begins the transaction unless one is open. Safe from any
// goroutine: produce calls it from the tasks' workers.
func (s *eosSession) begin() error {
	if s.open.Load() {
		return nil
	}
	s.beginMu.Lock()
	defer s.beginMu.Unlock()
	if s.open.Load() {
		return nil
	}
	if err := s.sess.Begin(); err != nil {
		return fmt.Errorf("beginning a transaction: %w", err)
	}
	s.began = time.Now()
	s.offsetsIn.Store(false)
	s.probe.Store(nil)
	s.open.Store(true)
	return nil
}

func (s *eosSession) beganAt() time.Time {
	s.beginMu.Lock()
	defer s.beginMu.Unlock()
	return s.began
}

// joinHold bounds how long the open transaction waits for a join to end.
const joinHold = eosTxnTimeout / 2

// due reports whether the open transaction should end now: the commit
// interval passed since it began, or release asks for it at once;
// either way not while the member is in a join (kgo holds the offset
// commit until the sync and then sends it with the old generation,
// which aborts the transaction), unless the join has lasted joinHold.
func (s *eosSession) due(interval time.Duration) bool {
	if !s.release.Load() && time.Since(s.beganAt()) < interval {
		return false
	}
	j := s.joining.Load()
	return j == 0 || time.Since(time.Unix(0, j)) >= joinHold
}

// produce sends a record (an output or a changelog write), inside the
// transaction under exactly_once_v2, which it begins if none is open.
func (r *kafkaRunner) produce(kr *kgo.Record, promise func(*kgo.Record, error)) {
	if r.eos != nil {
		if err := r.eos.begin(); err != nil {
			promise(kr, err)
			return
		}
	}
	r.cl.Produce(context.Background(), kr, promise)
}

// takeEmitErr returns and clears the first failed produce.
func (r *kafkaRunner) takeEmitErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	err := r.emitErr
	r.emitErr = nil
	return err
}

// allowRebalanceEOS lets a pending rebalance through, between
// transactions. A revocation marks the session failed until its next End,
// which would abort the next transaction for nothing: an End with no
// transaction open clears the mark at once (no offsets, nothing to
// abort; the consumer goes back to the committed offsets, where the new
// assignment starts anyway).
//
// A callback that was waiting runs now; a poll with a done context waits
// for it and returns nothing, so a revocation is seen, and the session
// reset, before more records are polled (they would be fetched again).
func (r *kafkaRunner) allowRebalanceEOS(ctx context.Context) {
	r.eos.sess.AllowRebalance()
	if r.eos.blockedAt.Swap(0) != 0 {
		done, cancel := context.WithCancel(ctx)
		cancel()
		r.eos.sess.PollRecords(done, 1)
		r.eos.sess.AllowRebalance()
	}
	if r.eos.dropped.Swap(false) {
		r.resetSession(ctx)
	}
}

// rebalanceWaits is kgo's OnPartitionsCallbackBlocked: a rebalance waits
// for this member to allow it. The open transaction ends at once rather
// than at the commit interval, and a poll waiting for records returns.
func (r *kafkaRunner) rebalanceWaits(context.Context, *kgo.Client) {
	r.eos.blockedAt.CompareAndSwap(0, time.Now().UnixNano())
	r.eos.hurry()
}

// hurry makes the loop end the open transaction at its next round, and
// wakes a poll waiting for records.
func (s *eosSession) hurry() {
	s.release.Store(true)
	s.wakeMu.Lock()
	defer s.wakeMu.Unlock()
	if s.wake != nil {
		s.wake()
	}
}

func (s *eosSession) setWake(cancel context.CancelFunc) {
	s.wakeMu.Lock()
	s.wake = cancel
	s.wakeMu.Unlock()
}

// resetSession clears the session's failed mark after a revocation with
// no transaction open.
func (r *kafkaRunner) resetSession(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	if _, err := r.eos.sess.End(ctx, kgo.TryAbort); err != nil {
		r.q.Logger.Warn("could not reset the transactional session after a rebalance; its next transaction aborts",
			"query", r.q.ID, "err", err)
	}
}

// endTxn ends the open transaction: flushes the caches and the producer
// and commits, unless asked not to or a produce failed; then commits the
// stores to Pebble, or rebuilds every task from Pebble after an abort.
// End is guarded against waiting forever on a rebalance the member holds
// back, and bounded (eos_end.go): an End that failed, or timed out with
// its outcome unknown, is a session error and the runner rejoins.
func (r *kafkaRunner) endTxn(ctx context.Context, commit bool) (bool, error) {
	start := time.Now()
	if commit {
		commit = r.prepareCommit(ctx)
	}
	r.rewindQueued()
	try := kgo.TryAbort
	if commit {
		try = kgo.TryCommit
	}
	committed, err := r.endSession(ctx, try)
	r.eos.open.Store(false)
	r.eos.release.Store(false)
	r.mu.Lock()
	r.emitErr = nil // the failed records were aborted with the transaction
	r.mu.Unlock()
	r.q.TxnEnds.Observe(time.Since(start))
	if committed && err == nil {
		err = r.confirmCommitted(ctx)
		committed = err == nil
	}
	if committed {
		return true, r.commitStores()
	}
	return false, errors.Join(err, r.tasks.rebuild())
}

// abortFailed aborts the open transaction of a failing runner, so that
// read_committed readers need not wait for it to time out. The tasks stay
// as they are (stop closes them, dropping their pending writes).
func (r *kafkaRunner) abortFailed() {
	if !r.eos.open.Load() {
		return
	}
	r.eos.open.Store(false)
	if _, err := r.endSession(context.Background(), kgo.TryAbort); err != nil {
		r.q.Logger.Warn("could not abort the transaction of the failed query; it times out", "query", r.q.ID, "err", err)
	}
}

// prepareCommit flushes the caches (the tasks' cached table updates,
// then the stores': their outputs and changelog records join the
// transaction) and the producer; false means the transaction must abort.
func (r *kafkaRunner) prepareCommit(ctx context.Context) bool {
	if err := r.flushCachedOutputs(); err != nil {
		r.q.Logger.Warn("aborting the transaction: a cached table update could not be forwarded", "query", r.q.ID, "err", err)
		return false
	}
	for _, t := range r.tasks.all() {
		if t.stores == nil {
			continue
		}
		if err := t.stores.flush(); err != nil {
			r.q.Logger.Warn("aborting the transaction: a store could not flush", "query", r.q.ID, "err", err)
			return false
		}
	}
	fctx, cancel := context.WithTimeout(ctx, eosEndTimeout)
	defer cancel()
	if err := r.cl.Flush(fctx); err != nil {
		if ctx.Err() == nil {
			r.q.Logger.Warn("aborting the transaction: its records could not be flushed", "query", r.q.ID, "timeout", eosEndTimeout, "err", err)
		}
		return false
	}
	r.mu.Lock()
	err := r.emitErr
	r.mu.Unlock()
	if err != nil {
		r.q.Logger.Warn("aborting the transaction: an output or changelog record failed", "query", r.q.ID, "err", err)
		return false
	}
	return true
}

// commitStores writes the committed transaction's store writes and
// checkpoints to Pebble, with one fsync for all the tasks, and remembers
// the tasks' stream times. A failure leaves local state behind its
// changelog: fatal, and the restart restores the tail.
func (r *kafkaRunner) commitStores() error {
	for _, t := range r.tasks.all() {
		if t.stores != nil {
			if err := t.stores.commitTransaction(r.producedOffset); err != nil {
				return fmt.Errorf("committing local state after the Kafka commit: %w", err)
			}
		}
	}
	if err := r.q.DB.SyncCommits(); err != nil {
		return fmt.Errorf("committing local state after the Kafka commit: %w", err)
	}
	r.eos.mu.Lock()
	defer r.eos.mu.Unlock()
	for _, k := range r.tasks.keys() {
		if v := r.q.StreamTimes.ForTask(physical.TaskID{SubTopology: k.SubTopology, Partition: k.Partition}).Load(); v >= 0 {
			r.eos.committed[k] = v
		}
	}
	return nil
}
