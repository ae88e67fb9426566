package runtime

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// newBalancer is the runner's task balancer: the query's threads, local
// offset sums and high-availability settings; as leader it reads the
// changelogs' end offsets, as member it hands its standbys and warmups
// to the standby feeder and follows the assignment's rebalance schedule
// (rebalance_rounds.go).
func (r *kafkaRunner) newBalancer() *taskBalancer {
	b := newTaskBalancer(r.tasks, r.q.cfg.Threads, r.q.taskOffsetSums)
	b.ha = r.q.cfg.HA
	b.stateful = map[int]bool{}
	for _, st := range r.q.topo.SubTopologies {
		b.stateful[st.ID] = len(st.Stores) > 0
	}
	b.endSums = r.changelogEndSums
	b.now = time.Now
	b.assigned = func(ma memberAssignment) {
		if len(ma.standby)+len(ma.warmup) > 0 || r.standby.hadReplicas() {
			r.q.logger().Info("replicas assigned", "query", r.q.id,
				"standby", encodeTaskNames(ma.standby), "warmup", encodeTaskNames(ma.warmup))
		}
		r.standby.setAssignment(ma)
		r.followSchedule(ma)
	}
	return b
}

// changelogEndSums sums the end offsets of each task's changelog
// partitions (nil when they cannot be listed: the balancer then makes no
// warmups).
func (r *kafkaRunner) changelogEndSums() map[taskKey]int64 {
	subOf := map[string]int{}
	var topics []string
	for _, st := range r.q.topo.SubTopologies {
		for _, spec := range st.Stores {
			subOf[spec.Changelog] = st.ID
			topics = append(topics, spec.Changelog)
		}
	}
	out := map[taskKey]int64{}
	if len(topics) == 0 {
		return out
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ends, err := r.k.adm.ListEndOffsets(ctx, topics...)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		r.q.logger().Warn("balancer: cannot list the changelogs' end offsets; no warmups this rebalance", "query", r.q.id, "err", err)
		return nil
	}
	ends.Each(func(o kadm.ListedOffset) {
		out[taskKey{sub: subOf[o.Topic], partition: o.Partition}] += o.Offset
	})
	return out
}

// setClient sets the runner's group client (a new one per transactional
// session under exactly_once_v2).
func (r *kafkaRunner) setClient(cl *kgo.Client) {
	r.mu.Lock()
	r.cl = cl
	r.mu.Unlock()
}

// forceRebalance makes the group rebalance now: a leader's probe, or a
// member whose subscription changed (its warmups caught up).
func (r *kafkaRunner) forceRebalance() {
	r.mu.Lock()
	cl := r.cl
	r.mu.Unlock()
	if cl != nil {
		cl.ForceRebalance()
	}
}
