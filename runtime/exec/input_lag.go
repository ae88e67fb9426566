package exec

import (
	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kgo"
)

// An active task's consumer lag: for each of its input partitions, how
// many records lie between the next offset the task processes and the
// partition's end (Kafka Streams' records-lag). Both come from what the
// runner already has: the end from the fetches (franz-go returns each
// fetched partition's high watermark and last stable offset with its
// records), the position from the records processed. No request is
// added, so an end is as fresh as the partition's last fetch.
//
// The runners read read_committed, so the end a task can reach is the
// last stable offset (the high watermark when the broker gives none).
//
// The position, the next offset to process, moves:
//   - to the first record of a fetch when nothing fetched before is
//     waiting to be processed (a new assignment, an offset skipped by a
//     transaction marker or compaction) or when the fetch starts below it
//     (the consumer was rewound: an aborted transaction, a new client);
//   - to the end when a fetch gives the partition no records and nothing
//     is waiting: the consumer is at the end (a transaction's commit
//     marker is the last offset, which no record carries), as the
//     partition groups take it (partition_group.go);
//   - past each record processed.

// inputPosition is one input partition as this server's runner consumes
// it; -1 is unknown in every field.
type inputPosition struct {
	position int64 // next offset to process
	fetched  int64 // offset after the last record fetched
	hwm, lso int64 // as the partition's last fetch told them
}

// end is where a read_committed consumer's partition ends (-1: unknown).
func (in *inputPosition) end() int64 {
	if in.lso >= 0 {
		return in.lso
	}
	return in.hwm
}

// lag is max(end − position, 0), -1 while either is unknown.
func (in *inputPosition) lag() int64 {
	end := in.end()
	if end < 0 || in.position < 0 {
		return -1
	}
	return max(end-in.position, 0)
}

// noteFetch takes a fetched partition's end and first offset.
func (in *inputPosition) noteFetch(p *kgo.FetchTopicPartition) {
	in.hwm, in.lso = p.HighWatermark, p.LastStableOffset
	waiting := in.position >= 0 && in.position < in.fetched
	if len(p.Records) == 0 {
		if end := in.end(); !waiting && end >= 0 {
			in.position, in.fetched = end, end
		}
		return
	}
	if first := p.Records[0].Offset; !waiting || first < in.position {
		in.position = first
	}
	in.fetched = p.Records[len(p.Records)-1].Offset + 1
}

// InputLag is how far an active task is behind one input partition.
type InputLag struct {
	Topic     string
	Partition int32
	// Position is the next offset the task processes (-1: not yet known,
	// nothing fetched since the task started here).
	Position int64
	// HighWatermark and LastStableOffset are the partition's as its last
	// fetch told them (-1: not yet fetched).
	HighWatermark, LastStableOffset int64
	// Lag is the records from Position to the last stable offset (the
	// high watermark when the broker gave none); -1 unknown.
	Lag int64
}

// ConsumerLag sums the task's known input lags (-1: none known yet).
func (t TaskAssignment) ConsumerLag() int64 {
	sum, known := int64(0), false
	for _, in := range t.Inputs {
		if in.Lag >= 0 {
			sum, known = sum+in.Lag, true
		}
	}
	if !known {
		return -1
	}
	return sum
}

// noteFetches records each fetched partition's end and first offset,
// before the records are processed.
func (r *kafkaRunner) noteFetches(fs kgo.Fetches) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fs.EachPartition(func(p kgo.FetchTopicPartition) {
		if p.Err != nil {
			return
		}
		k := tp{p.Topic, p.Partition}
		in := r.inputs[k]
		if in == nil {
			in = &inputPosition{position: -1, fetched: -1, hwm: -1, lso: -1}
			r.inputs[k] = in
		}
		in.noteFetch(&p)
	})
}

// processedTo records that partition k's records before next were
// processed; r.mu is held.
func (r *kafkaRunner) processedTo(k tp, next int64) {
	r.processed[k] = next
	if in := r.inputs[k]; in != nil {
		in.position = next
	}
}

// inputLags is active task k's lag on each of its input partitions, in
// its sub-topology's topic order.
func (r *kafkaRunner) inputLags(k physical.TaskID) []InputLag {
	topics := r.q.Topology.SubTopologies[k.SubTopology].Topics
	out := make([]InputLag, 0, len(topics))
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, topic := range topics {
		l := InputLag{Topic: topic, Partition: k.Partition, Position: -1, HighWatermark: -1, LastStableOffset: -1, Lag: -1}
		if in := r.inputs[tp{topic, k.Partition}]; in != nil {
			l.Position, l.HighWatermark, l.LastStableOffset, l.Lag = in.position, in.hwm, in.lso, in.lag()
		}
		out = append(out, l)
	}
	return out
}
