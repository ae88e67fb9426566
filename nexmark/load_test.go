package nexmark

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestLoadWritesUncompressed: Load's batches carry no compression, as a
// Kafka producer's by default (franz-go's own default, snappy, would
// compress these bids: their text repeats).
func TestLoadWritesUncompressed(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	g, err := NewGenerator(Config{Rate: DefaultRate})
	if err != nil {
		t.Fatal(err)
	}
	counts, err := Load(ctx, g, LoadConfig{Brokers: c.ListenAddrs(), Events: 2000, NoSideInput: true})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics(TopicBid),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var n int64
	for n < counts.Bids {
		fs := cl.PollFetches(ctx)
		if err := fs.Err(); err != nil {
			t.Fatal(err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			n++
			if got := r.Attrs.CompressionType(); got != 0 {
				t.Fatalf("bid at offset %d: batch compression %d, want 0 (none)", r.Offset, got)
			}
		})
	}
	if n == 0 {
		t.Fatal("no bids loaded")
	}
}
