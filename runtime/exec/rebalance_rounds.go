package exec

import (
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Rebalances that every member joins at once. A member in a join does
// not commit (kgo holds offset commits, transactional ones too, from
// JoinGroup to SyncGroup), and the join lasts until the last member
// joins; a member that learns of a rebalance only from its next
// heartbeat (every few seconds) so holds up the commits of the members
// that joined before it for up to a heartbeat interval. The rebalances
// the group plans are therefore announced in the assignment, for every
// member to join on its own at the same moment:
//
//   - the second round of a cooperative move (assignmentUserData.Rejoin):
//     the leader's plan took tasks from their owners, who revoke them and
//     rejoin at once; every other member rejoins at once too, so that
//     the new owners get the tasks without waiting for a heartbeat;
//   - a probing rebalance (ProbeAt): every member, not only the leader,
//     rejoins at that time.
//
// Before it rejoins, a member ends its open transaction without waiting
// for the commit interval (eosSession.release), so that neither its
// revocations nor the group's join wait for a commit; and while it is
// in a join it keeps its transaction open rather than end it into the
// held commit (eosSession.joining).
//
// Measured in an instrumented run, moving a task so took 58–67 ms from
// its revocation to its output on the new owner (revoke → assigned 10 ms
// → restored 10 ms → first records 29–41 ms → committed 4–10 ms),
// against ~660 ms before (the second round waited 500 ms for the new
// owner's first heartbeat, the first transaction 140 ms for the
// interval, and the revoking members' other tasks lost two transactions:
// one begun after the revocation, one ended into the held join commit).
// While a fourth server joins in tests/failover_test.go, the longest
// pause of a partition's output was 251/266/262 ms against baselines of
// 244/269/238 ms; before, 664 ms against 186 ms.
//
// Unplanned rebalances are still learnt by heartbeat: a member that
// joins, leaves or asks for a rebalance (its warmups caught up) waits in
// the join, its own commits held, until the others' next heartbeats.

// followSchedule acts on an assignment's rebalance schedule: a second
// round at once, a probing rebalance at its time (or none). It runs in
// the client's goroutine and does not block.
func (r *kafkaRunner) followSchedule(ma Assignment) {
	r.synced()
	r.scheduleProbe(ma.ProbeAt)
	if ma.Rejoin {
		r.q.Logger.Debug("rebalance: tasks were revoked; rejoining at once for the round that assigns them", "query", r.q.ID)
		r.rejoinNow()
	}
}

// rejoinNow ends the open transaction promptly and asks for a
// rebalance.
func (r *kafkaRunner) rejoinNow() {
	if r.eos != nil {
		r.eos.hurry()
	}
	r.forceRebalance()
}

// scheduleProbe sets the pending probing rebalance to at, replacing
// any other (zero: none).
func (r *kafkaRunner) scheduleProbe(at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.probe != nil {
		r.probe.Stop()
		r.probe = nil
	}
	if at.IsZero() {
		return
	}
	var t *time.Timer
	t = time.AfterFunc(time.Until(at), func() {
		r.mu.Lock()
		current := r.probe == t
		if current {
			r.probe = nil
		}
		r.mu.Unlock()
		if current {
			r.q.Logger.Info("probing rebalance", "query", r.q.ID)
			r.rejoinNow()
		}
	})
	r.probe = t
}

func (r *kafkaRunner) stopProbe() { r.scheduleProbe(time.Time{}) }

// synced notes that the member's join ended with a sync: commits go
// through again.
func (r *kafkaRunner) synced() {
	if r.eos != nil {
		r.eos.joining.Store(0)
	}
}

// syncHook is a group balancer that calls onSync when it parses the
// member's assignment (the range balancer of a group with an older
// member, which knows no task balancer).
type syncHook struct {
	kgo.GroupBalancer
	onSync func()
}

func (h syncHook) ParseSyncAssignment(assignment []byte) (map[string][]int32, error) {
	h.onSync()
	return h.GroupBalancer.ParseSyncAssignment(assignment)
}
