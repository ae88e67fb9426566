package exec

import (
	"errors"
	"sync"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kgo"
)

// taskGroups are the partition groups of a Kafka runner's tasks that read
// several partitions (partition_group.go). A task of a sub-topology with
// one topic has none: its fetched records go straight to it, unbuffered.
//
// Only processed records count as processed: under at_least_once the
// runner's processed offsets move as records leave a group; under
// exactly_once_v2, whose session commits the fetch positions, every
// queued record is handed back to the consumer (rewind) before a
// transaction ends, so its offset is neither committed nor skipped. An
// abort rewinds further, to the last commit, and the groups are empty by
// then.
type taskGroups struct {
	idle  time.Duration
	multi map[string]bool // topics of sub-topologies that read several

	mu     sync.Mutex
	groups map[physical.TaskID]*partitionGroup
}

func newTaskGroups(topo *physical.Topology, idle time.Duration) *taskGroups {
	g := &taskGroups{idle: idle, multi: map[string]bool{}, groups: map[physical.TaskID]*partitionGroup{}}
	for _, st := range topo.SubTopologies {
		if len(st.Topics) > 1 {
			for _, t := range st.Topics {
				g.multi[t] = true
			}
		}
	}
	return g
}

// add queues a fetched partition of a multi-input task, creating its
// group.
func (g *taskGroups) add(ts *taskSet, p kgo.FetchTopicPartition) {
	k := ts.keyOf(p.Topic, p.Partition)
	g.mu.Lock()
	defer g.mu.Unlock()
	pg := g.groups[k]
	if pg == nil {
		var parts []tp
		for _, t := range ts.topo.SubTopologies[k.SubTopology].Topics {
			parts = append(parts, tp{t, k.Partition})
		}
		pg = newPartitionGroup(g.idle, parts)
		g.groups[k] = pg
	}
	pg.add(p)
}

// pending returns the tasks whose groups hold records or stepped over
// transaction markers.
func (g *taskGroups) pending() []physical.TaskID {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []physical.TaskID
	for k, pg := range g.groups {
		if pg.buffered() || pg.stepped() {
			out = append(out, k)
		}
	}
	return out
}

func (g *taskGroups) get(k physical.TaskID) *partitionGroup {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.groups[k]
}

// drop forgets the group of task k (revoked, lost or closed).
func (g *taskGroups) drop(k physical.TaskID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.groups, k)
}

// reset forgets every group.
func (g *taskGroups) reset() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.groups = map[physical.TaskID]*partitionGroup{}
}

// unread empties every group and returns where each partition with
// queued records must be fetched from again.
func (g *taskGroups) unread() map[string]map[int32]kgo.EpochOffset {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := map[string]map[int32]kgo.EpochOffset{}
	for _, pg := range g.groups {
		for topic, ps := range pg.unread() {
			if out[topic] == nil {
				out[topic] = map[int32]kgo.EpochOffset{}
			}
			for p, o := range ps {
				out[topic][p] = o
			}
		}
	}
	return out
}

// pollTimeout is how long a poll may block: the commit interval, or less
// when a group's idle wait ends sooner.
func (g *taskGroups) pollTimeout(interval time.Duration, now time.Time) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	d := interval
	for _, pg := range g.groups {
		if at := pg.wakeAt(); !at.IsZero() {
			d = min(d, max(time.Millisecond, at.Sub(now)))
		}
	}
	return d
}

// workUnits splits a poll's records into independent units for the
// workers: a single-input task's partition, or a multi-input task's
// whole group (one task is never on two workers at once).
func (r *kafkaRunner) workUnits(fs kgo.Fetches) []func() error {
	var units []func() error
	fs.EachPartition(func(p kgo.FetchTopicPartition) {
		if r.groups.multi[p.Topic] {
			if r.tasks.lookup(p.Topic, p.Partition) != nil {
				r.groups.add(r.tasks, p)
			}
			return
		}
		if len(p.Records) > 0 {
			units = append(units, func() error { return r.processPartition(p) })
		}
	})
	for _, k := range r.groups.pending() {
		units = append(units, func() error { return r.processGroup(k) })
	}
	return units
}

// processGroup releases task k's queued records in timestamp order, as
// far as its partition group allows now.
func (r *kafkaRunner) processGroup(k physical.TaskID) error {
	pg := r.groups.get(k)
	t := r.tasks.lookupKey(k)
	if pg == nil || t == nil {
		return nil
	}
	err := releaseInOrder(pg, func(rec *kgo.Record, in *physical.InRecord) error {
		if err := t.task.Process(in); err != nil {
			return errors.Join(err, r.tasks.move(k, taskError))
		}
		r.q.Processed.Add(1)
		pg.markDone(rec)
		return nil
	})
	if err == nil {
		err = r.releaseIfFull(k, t)
	}
	r.mu.Lock()
	pg.takeDone(r.processedTo)
	r.mu.Unlock()
	return err
}

// releaseInOrder passes fn the records pg releases now, in time order,
// until fn fails.
func releaseInOrder(pg *partitionGroup, fn func(*kgo.Record, *physical.InRecord) error) error {
	var in physical.InRecord
	now := time.Now() // one clock reading per release: idle waits are coarse
	for rec := pg.next(now); rec != nil; rec = pg.next(now) {
		fromKgo(rec, &in)
		if err := fn(rec, &in); err != nil {
			return err
		}
	}
	return nil
}

// rewindQueued hands the records the groups still queue back to the
// consumer (exactly_once_v2, before a transaction ends: the session
// commits the fetch positions, which must not pass unprocessed records).
func (r *kafkaRunner) rewindQueued() {
	if offs := r.groups.unread(); len(offs) > 0 {
		r.cl.SetOffsets(offs)
	}
}

// lookupKey returns task k if it exists.
func (ts *taskSet) lookupKey(k physical.TaskID) *taskEntry {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.tasks[k]
}

// processPush runs a push query's fetched records: single-input tasks'
// in fetch order, multi-input tasks' through their partition groups.
func (p *kafkaPush) processPush(fs kgo.Fetches) error {
	var err error
	var in physical.InRecord
	fs.EachPartition(func(fp kgo.FetchTopicPartition) {
		if err != nil {
			return
		}
		multi := p.groups.multi[fp.Topic]
		if !multi && len(fp.Records) == 0 {
			return
		}
		var t *taskEntry
		if t, err = p.tasks.get(fp.Topic, fp.Partition); err != nil {
			return
		}
		if multi {
			p.groups.add(p.tasks, fp)
			return
		}
		for _, r := range fp.Records {
			fromKgo(r, &in)
			if err = t.task.Process(&in); err != nil {
				return
			}
		}
	})
	for _, k := range p.groups.pending() {
		if err != nil {
			break
		}
		if t := p.tasks.lookupKey(k); t != nil {
			err = releaseInOrder(p.groups.get(k), func(_ *kgo.Record, in *physical.InRecord) error { return t.task.Process(in) })
		}
	}
	return err
}
