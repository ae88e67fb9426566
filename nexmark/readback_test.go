package nexmark

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestWaitConsumedAndReadTopic against kfake: WaitConsumed returns only
// once the group has committed the end of its partition, and ReadTopic
// reads every record to the end.
func TestWaitConsumedAndReadTopic(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "in"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	brokers := c.ListenAddrs()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	prod, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic("in"))
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	for i := range 50 {
		if err := prod.ProduceSync(ctx, &kgo.Record{Value: []byte{byte(i)}}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	adm := kadm.NewClient(prod)
	// Nothing consumes yet: not consumed.
	short, stop := context.WithTimeout(ctx, 300*time.Millisecond)
	if err := WaitConsumed(short, adm, "nx_query_", 1, 20*time.Millisecond); err == nil {
		t.Fatal("WaitConsumed returned with no group")
	}
	stop()
	cons, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumerGroup("nx_query_A"), kgo.ConsumeTopics("in"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit())
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	for seen := 0; seen < 50; {
		fs := cons.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatal(err)
		}
		seen += fs.NumRecords()
	}
	commit := func(at int64) {
		t.Helper()
		var err error
		cons.CommitOffsetsSync(ctx, map[string]map[int32]kgo.EpochOffset{"in": {0: {Epoch: -1, Offset: at}}},
			func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, _ *kmsg.OffsetCommitResponse, e error) { err = e })
		if err != nil {
			t.Fatal(err)
		}
	}
	// A commit short of the end does not count.
	commit(25)
	if done, why, err := consumed(ctx, adm, "nx_query_", 1); err != nil || done {
		t.Fatalf("consumed = %v (%s, %v) at offset 25 of 50", done, why, err)
	}
	commit(50)
	if err := WaitConsumed(ctx, adm, "nx_query_", 1, 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	recs, err := ReadTopic(ctx, brokers, "in")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 50 || recs[49].Value[0] != 49 {
		t.Fatalf("ReadTopic read %d records, want 50 in order", len(recs))
	}
}
