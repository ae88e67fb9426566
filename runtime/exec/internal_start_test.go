package exec

import (
	"context"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestInternalFromStart: a partition of an internal topic that the group
// has no commit for starts at the log start whatever the reset says; a
// committed offset is kept; a source topic's partitions keep the start
// offset auto.offset.reset gave them.
func TestInternalFromStart(t *testing.T) {
	const repart, source = "app-Aggregate-GroupBy-repartition", "clicks"
	topo := &physical.Topology{Internal: []physical.InternalTopic{{Name: repart}}}
	latest := kgo.NewOffset().AtEnd()
	offsets := map[string]map[int32]kgo.Offset{
		repart: {0: latest, 1: kgo.NewOffset().At(5)},
		source: {0: latest},
	}
	got, err := internalFromStart(topo)(context.Background(), offsets)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[int32]int64{repart: {0: -2, 1: 5}, source: {0: -1}} // -2 start, -1 end
	for topic, parts := range want {
		for p, at := range parts {
			if o := got[topic][p].EpochOffset().Offset; o != at {
				t.Errorf("%s[%d] starts at %d, want %d", topic, p, o, at)
			}
		}
	}
}
