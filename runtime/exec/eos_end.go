package exec

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Ending a transaction must not stall the query. kgo's
// GroupTransactSession.End, after committing the offsets to the
// transaction, waits for a forced heartbeat (or for the session's revoke
// or lost callback) before it sends EndTxn. Only the group manager's
// heartbeat loop answers the force, and that loop is gone once the group
// lost the member (the coordinator forgot it: a broker restarted after a
// crash, a session timeout). The manager then wants to call the lost
// callback, but under BlockRebalanceOnPoll it waits for AllowRebalance,
// which the runner calls only after End: End and the manager wait on
// each other, forever on a context without deadline.
//
// Two guards, neither of which changes an outcome kgo would not reach:
//
//   - Once End has waited endStall while a rebalance has waited endStall
//     for AllowRebalance (rebalanceWaits), End is let past it:
//     AllowRebalance. The lost (or revoke) callback runs, closes the
//     session's channel End waits on, and End aborts, exactly as for a rebalance that came before End
//     (kgo's documented choice (b): allow the rebalance, abort the work).
//     The aborted outcome is known, so the loop rebuilds its tasks from
//     Pebble and carries on; the group manager rejoins and the new
//     assignment resumes from the committed offsets.
//
//   - End is bounded by eosEndTimeout. An End that times out has an
//     unknown outcome (its EndTxn may or may not have reached the
//     coordinator) and leaves kgo's client unusable, so it is a session
//     error: the runner drops every task, closes the session and makes a
//     new one (recoverFrom, rejoin). Safe whatever the coordinator
//     decided: the new session's InitProducerID on the same transactional
//     id waits for a transaction in PrepareCommit/PrepareAbort to
//     complete and aborts one still Ongoing; the new member reads the
//     committed input offsets (RequireStable waits for pending ones) and
//     restores every task from its Pebble checkpoint plus the committed
//     changelog tail. If the transaction committed, its changelog
//     records, outputs and offsets are all visible and are not redone;
//     if it aborted, none are, and its input is processed again. Pebble
//     never received the transaction's writes (they are committed only
//     after a known commit), so local state cannot run ahead of Kafka.
const (
	endStall      = 2 * time.Second
	eosEndTimeout = 3 * eosTxnTimeout
)

// endSession is the session's End, guarded as described above.
func (r *kafkaRunner) endSession(ctx context.Context, try kgo.TransactionEndTry) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, eosEndTimeout)
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go r.unstickEnd(done)
	committed, err := r.eos.sess.End(kgo.PreTxnCommitFnContext(ctx, r.withStreamTimes), try)
	if err != nil && ctx.Err() != nil {
		r.q.Logger.Warn("ending the transaction timed out; its outcome is unknown, so the query drops its tasks and rejoins, restoring them from the committed changelogs",
			"query", r.q.ID, "timeout", eosEndTimeout, "err", err)
		err = fmt.Errorf("ending the transaction took over %v (outcome unknown; the coordinator resolves it): %w", eosEndTimeout, err)
	}
	return committed, err
}

// unstickEnd lets a rebalance through once End has waited endStall
// while that rebalance has waited endStall for AllowRebalance (a
// rebalance that only just arrived, as one whose sync End's offset
// commit was waiting for, is left to End's own AllowRebalance after it),
// checking again until End returns (done closes).
func (r *kafkaRunner) unstickEnd(done <-chan struct{}) {
	tick := time.NewTicker(endStall / 4)
	defer tick.Stop()
	started := time.Now()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		at := r.eos.blockedAt.Load()
		if at == 0 || time.Since(started) < endStall || time.Since(time.Unix(0, at)) < endStall {
			continue
		}
		r.q.Logger.Warn("ending the transaction waits on a rebalance this member holds back (the group coordinator likely lost the member); letting the rebalance through, so the transaction aborts and its records are processed again",
			"query", r.q.ID, "waited", time.Since(started).Round(time.Millisecond))
		r.eos.sess.AllowRebalance()
		started = time.Now() // warn again only if End goes on waiting
	}
}

// A committed End does not prove a commit when the transaction carried
// no input offsets. franz-go (v1.22.3, the newest served here) ends a
// transaction with an abort, and reports it committed, when it believes
// none of the transaction's produces succeeded (its log: "no produce
// succeeded in this transaction but produces were attempted; issuing an
// abort"): it counts a partition as added only on a produce response it
// credits, and under load it failed to credit one that had succeeded
// (the command log lost appends so: commandlog's confirmCommitted). With
// offsets in the transaction it always sends the commit (the offsets
// count as added), so only a transaction that produced and polled
// nothing is exposed: a wall-clock punctuation's (window.close.idle.ms).
// Such a commit is confirmed by reading its records back read_committed
// from the first one acknowledged (the probe): a record of the
// transaction's producer id at or after the probe's offset (the probe
// itself, or a later record of the transaction if compaction removed
// it; later transactions have not begun) proves the commit. None there:
// the transaction was aborted, and the runner takes the recovery path
// (sessionError: drop the tasks, rejoin, restore from Pebble, which
// never received the transaction's writes, and the committed changelog
// tail), so the punctuation runs again.

// ackedRecord is where one record of the open transaction was written.
type ackedRecord struct {
	topic     string
	partition int32
	offset    int64
	producer  int64 // the transaction's producer id
}

// noteAcked keeps the first record acknowledged in the open transaction
// (called from every produce promise: one atomic load once it is kept).
func (s *eosSession) noteAcked(kr *kgo.Record) {
	if s.probe.Load() != nil || kr.Offset < 0 {
		return
	}
	s.probe.CompareAndSwap(nil, &ackedRecord{kr.Topic, kr.Partition, kr.Offset, kr.ProducerID})
}

// confirmCommitted checks a committed transaction without input offsets
// by reading its probe's partition back from the probe on; nil for every
// other transaction.
func (r *kafkaRunner) confirmCommitted(ctx context.Context) error {
	p := r.eos.probe.Load()
	if p == nil || r.eos.offsetsIn.Load() {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, eosEndTimeout)
	defer cancel()
	found := false
	end, err := r.k.EndOffset(ctx, p.topic, p.partition)
	if err == nil {
		err = r.k.ReadRange(ctx, p.topic, p.partition, p.offset, end, func(rec *kgo.Record) error {
			found = found || rec.ProducerID == p.producer
			return nil
		})
	}
	r.q.Logger.Debug("confirmed a transaction without offsets", "query", r.q.ID,
		"topic", p.topic, "partition", p.partition, "offset", p.offset, "committed", found, "err", err)
	switch {
	case err != nil:
		return fmt.Errorf("confirming the commit of a transaction without input offsets (record %s[%d]@%d; outcome unknown, restoring from the committed changelogs): %w",
			p.topic, p.partition, p.offset, err)
	case !found:
		r.q.Logger.Warn("a transaction reported committed was aborted; the query rejoins and restores, so its work is done again",
			"query", r.q.ID, "topic", p.topic, "partition", p.partition, "offset", p.offset)
		return fmt.Errorf("the transaction was reported committed but its record %s[%d]@%d is not in the topic read_committed (franz-go ended it with an abort); rejoining to do its work again",
			p.topic, p.partition, p.offset)
	}
	return nil
}
