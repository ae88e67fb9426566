package exec

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/broker"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestFailedOffsetCommitIsRetried: offsets whose commit did not go
// through (here its context ended, as when the runner stops in the middle
// of a periodic commit) stay dirty and are sent by the next commit.
// Marking them committed before the answer lost them, and a restart then
// processed their records a second time.
func TestFailedOffsetCommitIsRetried(t *testing.T) {
	b, err := broker.Start(broker.WithListen("127.0.0.1:0"), broker.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	admCl, err := kgo.NewClient(kgo.SeedBrokers(b.Addrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer admCl.Close()
	adm := kadm.NewClient(admCl)
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "in"); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addrs()...), kgo.ConsumerGroup("app"), kgo.ConsumeTopics("in"),
		kgo.DisableAutoCommit())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	r := &kafkaRunner{cl: cl, q: &Query{ID: "Q", Logger: slog.New(slog.DiscardHandler)},
		processed: map[tp]int64{{"in", 0}: 7}, committed: map[tp]int64{}}

	ended, end := context.WithCancel(ctx)
	end()
	r.commitOffsets(ended)
	if got := r.dirtyOffsets(); got["in"][0].Offset != 7 {
		t.Fatalf("after a failed commit the dirty offsets are %v, want in/0 at 7", got)
	}
	r.commitOffsets(ctx)
	if got := r.dirtyOffsets(); len(got) != 0 {
		t.Fatalf("after a commit the dirty offsets are %v, want none", got)
	}
	offs, err := adm.FetchOffsets(ctx, "app")
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := offs.Lookup("in", 0); !ok || o.At != 7 {
		t.Fatalf("committed %+v (found %v), want 7", o, ok)
	}
}
