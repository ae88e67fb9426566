package exec

import (
	"testing"

	"github.com/sqlstream/sqlstream/physical"
)

// TestMemAnswersAsAClusterWithoutBrokers: what only Kafka can do, the
// in-memory cluster answers as a cluster without brokers or group
// offsets would, so the engine never asks which cluster it has.
func TestMemAnswersAsAClusterWithoutBrokers(t *testing.T) {
	m := NewMem()
	ctx := t.Context()
	if !m.Synchronous() {
		t.Error("the in-memory cluster is not synchronous")
	}
	if err := m.Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
	if err := m.CreateTopic(ctx, TopicSpec{Name: "t", Partitions: 2}); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"a", "b", "c"} {
		if err := m.Produce(ctx, &physical.OutRecord{Topic: "t", Partition: 1, Key: []byte(key)}); err != nil {
			t.Fatal(err)
		}
	}
	ends, err := m.EndOffsets(ctx, "t", "missing")
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := ends.Lookup("t", 1); !ok || o.Offset != 3 {
		t.Errorf("end of t[1] %+v (found %v), want 3", o, ok)
	}
	if o, ok := ends.Lookup("t", 0); !ok || o.Offset != 0 {
		t.Errorf("end of t[0] %+v (found %v), want 0", o, ok)
	}
	if _, ok := ends["missing"]; ok {
		t.Error("a missing topic has end offsets")
	}
	if err := m.CommitEnds(ctx, "g", []string{"t"}); err != nil {
		t.Errorf("CommitEnds: %v", err)
	}
	if offs, err := m.CommittedOffsets(ctx, "g"); err != nil || len(offs) != 0 {
		t.Errorf("CommittedOffsets: %v, %v; want none", offs, err)
	}
}
