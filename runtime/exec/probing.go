package exec

import (
	"context"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// balancerHooks are what the query's task balancer (Query.Balancer)
// calls back: as leader it reads the changelogs' end offsets, as member it
// hands its standbys and warmups to the standby feeder and follows the
// assignment's rebalance schedule (rebalance_rounds.go).
func (r *kafkaRunner) balancerHooks() BalancerHooks {
	return BalancerHooks{SubOf: r.tasks.subOf, EndSums: r.changelogEndSums,
		Assigned: func(a Assignment) {
			if len(a.Standby)+len(a.Warmup) > 0 || r.standby.hadReplicas() {
				r.q.Logger.Info("replicas assigned", "query", r.q.ID,
					"standby", taskNames(a.Standby), "warmup", taskNames(a.Warmup))
			}
			r.standby.setAssignment(a)
			r.followSchedule(a)
		}}
}

// taskNames renders tasks as Kafka Streams names them ("0_3").
func taskNames(ts []physical.TaskID) []string {
	out := make([]string, 0, len(ts))
	for _, k := range ts {
		out = append(out, k.String())
	}
	return out
}

// changelogEndSums sums the end offsets of each task's changelog
// partitions (nil when they cannot be listed: the balancer then makes no
// warmups).
func (r *kafkaRunner) changelogEndSums() map[physical.TaskID]int64 {
	subOf := map[string]int{}
	var topics []string
	for _, st := range r.q.Topology.SubTopologies {
		for _, spec := range st.Stores {
			subOf[spec.Changelog] = st.ID
			topics = append(topics, spec.Changelog)
		}
	}
	out := map[physical.TaskID]int64{}
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
		r.q.Logger.Warn("balancer: cannot list the changelogs' end offsets; no warmups this rebalance", "query", r.q.ID, "err", err)
		return nil
	}
	ends.Each(func(o kadm.ListedOffset) {
		out[physical.TaskID{SubTopology: subOf[o.Topic], Partition: o.Partition}] += o.Offset
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
