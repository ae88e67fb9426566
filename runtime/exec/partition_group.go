package exec

import (
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// unknownLagWait bounds the wait for an empty partition whose end offset
// the fetches have not told yet (Kafka Streams waits for it without
// bound; a franz-go poll returns no word on a partition while nothing on
// its broker has records, so sqlstream gives up after this long and
// processes the other partitions, as after an idle wait).
const unknownLagWait = time.Second

// partitionGroup is Kafka Streams' PartitionGroup: the input partitions
// of one task that reads several, each with a queue of fetched records.
// next always releases the head record with the smallest timestamp, so
// the task sees its inputs in time order whatever order they were
// fetched in; while some partition has no records it holds back, unless
// that partition is known to be caught up and max.task.idle.ms has
// passed (enforced processing).
//
// Ties go to the partition listed first (the sub-topology's topic
// order), which Kafka Streams leaves unspecified.
type partitionGroup struct {
	idle     time.Duration // max.task.idle.ms; negative: never wait
	queues   []*partitionQueue
	enforced int64 // records released while a partition was empty
}

// partitionQueue is one input partition's fetched, unprocessed records.
type partitionQueue struct {
	tp   tp
	recs []*kgo.Record
	// lag is how many records the broker has past the fetched ones (for
	// read_committed, up to the last stable offset); -1 unknown.
	lag int64
	// deadline is when an empty queue stops holding the group back; zero
	// until the group first waits on it.
	deadline time.Time
	// done is the offset after the last record of the queue processed
	// (-1: none since the last takeDone).
	done int64
}

func newPartitionGroup(idle time.Duration, parts []tp) *partitionGroup {
	g := &partitionGroup{idle: idle}
	for _, p := range parts {
		g.queues = append(g.queues, &partitionQueue{tp: p, lag: -1, done: -1})
	}
	return g
}

func (g *partitionGroup) queue(p tp) *partitionQueue {
	for _, q := range g.queues {
		if q.tp == p {
			return q
		}
	}
	return nil
}

// add queues a fetched partition's records and notes its lag: a partition
// fetched without records is caught up, one with records lags by what
// its end offset says is left.
func (g *partitionGroup) add(p kgo.FetchTopicPartition) {
	q := g.queue(tp{p.Topic, p.Partition})
	if q == nil || p.Err != nil {
		return
	}
	fetched := int64(-1) // the offset after the fetch's last record, a marker's too
	if n := len(p.Records); n > 0 {
		fetched = p.Records[n-1].Offset + 1
	}
	if recs := dataRecords(p.Records); len(recs) < len(p.Records) {
		if len(recs) == 0 && len(q.recs) == 0 {
			q.done = fetched // only markers, nothing waiting: step over them
		}
		p.Records = recs
	}
	if len(p.Records) == 0 {
		if q.lag != 0 {
			q.lag, q.deadline = 0, time.Time{}
		}
		return
	}
	q.recs = append(q.recs, p.Records...)
	q.deadline = time.Time{}
	end := p.LastStableOffset
	if end <= 0 {
		end = p.HighWatermark
	}
	q.lag = max(0, end-fetched)
}

// dataRecords drops the transaction markers of recs (the clients keep
// them to step over their offsets).
func dataRecords(recs []*kgo.Record) []*kgo.Record {
	for i, r := range recs {
		if !r.Attrs.IsControl() {
			continue
		}
		out := append(make([]*kgo.Record, 0, len(recs)-1), recs[:i]...)
		for _, r := range recs[i+1:] {
			if !r.Attrs.IsControl() {
				out = append(out, r)
			}
		}
		return out
	}
	return recs
}

// next removes and returns the record to process now, or nil when the
// group is empty or must wait for an empty partition.
func (g *partitionGroup) next(now time.Time) *kgo.Record {
	var head *partitionQueue
	waiting := false
	for _, q := range g.queues {
		if len(q.recs) == 0 {
			waiting = waiting || g.holds(q, now)
			continue
		}
		if head == nil || q.recs[0].Timestamp.Before(head.recs[0].Timestamp) {
			head = q
		}
	}
	if head == nil || waiting {
		return nil
	}
	if g.hasEmpty() {
		g.enforced++
	}
	rec := head.recs[0]
	head.recs[0] = nil
	head.recs = head.recs[1:]
	return rec
}

// markDone records that rec, released by next, was processed.
func (g *partitionGroup) markDone(rec *kgo.Record) {
	for _, q := range g.queues {
		if q.tp.topic == rec.Topic && q.tp.partition == rec.Partition {
			q.done = rec.Offset + 1
			return
		}
	}
}

// takeDone calls fn with each partition's offset after its last processed
// record since the previous call.
func (g *partitionGroup) takeDone(fn func(p tp, next int64)) {
	for _, q := range g.queues {
		if q.done >= 0 {
			fn(q.tp, q.done)
			q.done = -1
		}
	}
}

// holds reports whether the empty queue q still holds the group back,
// starting its wait the first time it is asked.
func (g *partitionGroup) holds(q *partitionQueue, now time.Time) bool {
	if g.idle < 0 {
		return false
	}
	if q.deadline.IsZero() {
		wait := g.idle
		if q.lag != 0 {
			wait = max(wait, unknownLagWait)
		}
		q.deadline = now.Add(wait)
	}
	return now.Before(q.deadline)
}

func (g *partitionGroup) hasEmpty() bool {
	for _, q := range g.queues {
		if len(q.recs) == 0 {
			return true
		}
	}
	return false
}

// stepped reports whether a queue stepped over markers (takeDone has
// an offset to give).
func (g *partitionGroup) stepped() bool {
	for _, q := range g.queues {
		if q.done >= 0 {
			return true
		}
	}
	return false
}

// buffered reports whether any queue holds records.
func (g *partitionGroup) buffered() bool {
	for _, q := range g.queues {
		if len(q.recs) > 0 {
			return true
		}
	}
	return false
}

// wakeAt is the earliest deadline of a waiting empty queue (zero: none),
// so the poll need not block past it.
func (g *partitionGroup) wakeAt() time.Time {
	var at time.Time
	if !g.buffered() {
		return at
	}
	for _, q := range g.queues {
		if len(q.recs) == 0 && !q.deadline.IsZero() && (at.IsZero() || q.deadline.Before(at)) {
			at = q.deadline
		}
	}
	return at
}

// unread returns, for each partition with queued records, the offset of
// its first one (where fetching must resume if the queue is dropped), and
// empties the queues.
func (g *partitionGroup) unread() map[string]map[int32]kgo.EpochOffset {
	var out map[string]map[int32]kgo.EpochOffset
	for _, q := range g.queues {
		if len(q.recs) == 0 {
			continue
		}
		if out == nil {
			out = map[string]map[int32]kgo.EpochOffset{}
		}
		if out[q.tp.topic] == nil {
			out[q.tp.topic] = map[int32]kgo.EpochOffset{}
		}
		first := q.recs[0]
		out[q.tp.topic][q.tp.partition] = kgo.EpochOffset{Epoch: first.LeaderEpoch, Offset: first.Offset}
		q.recs, q.lag, q.deadline = nil, -1, time.Time{}
	}
	return out
}
