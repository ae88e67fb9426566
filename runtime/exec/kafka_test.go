package exec

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/broker"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestBrokerErrorMessage: a broker's refusal is told in its own words
// with the code's name, not the code's generic description, and still
// matches the code; without a message the code is returned as is.
func TestBrokerErrorMessage(t *testing.T) {
	msg := "5 partitions requested, the broker allows at most 4 per topic"
	err := brokerError(kerr.InvalidPartitions, msg)
	if err.Error() != msg+" (INVALID_PARTITIONS)" || !errors.Is(err, kerr.InvalidPartitions) {
		t.Errorf("got %q (is INVALID_PARTITIONS: %v)", err, errors.Is(err, kerr.InvalidPartitions))
	}
	if err := brokerError(kerr.TopicAlreadyExists, ""); err != kerr.TopicAlreadyExists {
		t.Errorf("no message: %v", err)
	}
	if err := brokerError(nil, "ignored"); err != nil {
		t.Errorf("no error: %v", err)
	}
}

// TestClientsWriteUncompressedByDefault: the engine's clients write
// uncompressed record batches (Kafka's compression.type default, which
// ksqlDB runs), not franz-go's default snappy, both the engine's own
// client (INSERT VALUES and the statements' synchronous produces) and a
// query's; a codec a client is given (as runtime/kafkasec maps a
// query's compression.type) wins. The batches are read back from the
// broker: a fetched record carries its batch's attributes.
func TestClientsWriteUncompressedByDefault(t *testing.T) {
	b, err := broker.Start(broker.WithListen("127.0.0.1:0"), broker.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	k, err := NewKafka(KafkaConfig{Seeds: b.Addrs(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Values snappy would shrink: franz-go sends a batch compressed only
	// when that makes it smaller.
	value := []byte(strings.Repeat("compressible ", 40))
	for _, c := range []struct {
		topic string
		opts  []kgo.Opt
		want  uint8 // the batch's codec: 0 none, 2 snappy, 4 zstd
	}{{"engine", nil, 0}, {"query", []kgo.Opt{kgo.ProducerLinger(5 * time.Millisecond)}, 0},
		{"zstd", []kgo.Opt{kgo.ProducerBatchCompression(kgo.ZstdCompression())}, 4}} {
		if err := k.CreateTopic(ctx, TopicSpec{Name: c.topic, Partitions: 1}); err != nil {
			t.Fatal(err)
		}
		recs := make([]*physical.OutRecord, 20)
		for i := range recs {
			recs[i] = &physical.OutRecord{Topic: c.topic, Partition: 0, Value: value}
		}
		if c.opts == nil {
			err = k.Produce(ctx, recs...)
		} else {
			err = produceWith(ctx, k, c.opts, recs)
		}
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range readBack(ctx, t, b.Addrs(), c.topic, len(recs)) {
			if got := r.Attrs.CompressionType(); got != c.want {
				t.Fatalf("%s record %d: batch compression %d, want %d", c.topic, i, got, c.want)
			}
		}
	}
}

// produceWith writes recs through a client of k made with opts.
func produceWith(ctx context.Context, k *Kafka, opts []kgo.Opt, recs []*physical.OutRecord) error {
	cl, err := k.Client(opts...)
	if err != nil {
		return err
	}
	defer cl.Close()
	krs := make([]*kgo.Record, len(recs))
	for i, r := range recs {
		krs[i] = ToKgo(r)
	}
	return cl.ProduceSync(ctx, krs...).FirstErr()
}

// readBack reads the first n records of topic with a client of franz-go's
// defaults.
func readBack(ctx context.Context, t *testing.T, seeds []string, topic string, n int) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var out []*kgo.Record
	for len(out) < n {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%s: %d of %d records before the deadline", topic, len(out), n)
		}
		out = append(out, fs.Records()...)
	}
	return out
}
