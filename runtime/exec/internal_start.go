package exec

import (
	"context"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kgo"
)

// A query's group reads its internal topics (repartition topics, a
// foreign-key join's subscription and response topics) from their start
// when it has no commit for a partition, whatever auto.offset.reset says,
// as Kafka Streams does (it resets internal topics to earliest, only
// source topics follow the setting). Every record in an internal topic
// was written by the query itself for the query: one that comes before
// the group's first commit (written by a task of another member, or by
// this one before the partition was assigned, since a topic created
// moments ago joins the subscription at the next metadata refresh) would
// otherwise be skipped under "latest", and with it its row's count or
// join.
//
// internalFromStart is the group's AdjustFetchOffsetsFn: a partition
// without a commit comes with the client's start offset (AtEnd or
// AtStart, both negative); a commit is an offset of 0 or more and is
// kept.
func internalFromStart(topo *physical.Topology) func(context.Context, map[string]map[int32]kgo.Offset) (map[string]map[int32]kgo.Offset, error) {
	internal := map[string]bool{}
	for _, t := range topo.Internal {
		internal[t.Name] = true
	}
	return func(_ context.Context, offsets map[string]map[int32]kgo.Offset) (map[string]map[int32]kgo.Offset, error) {
		for topic, parts := range offsets {
			if !internal[topic] {
				continue
			}
			for p, o := range parts {
				if o.EpochOffset().Offset < 0 {
					parts[p] = kgo.NewOffset().AtStart()
				}
			}
		}
		return offsets, nil
	}
}
