package nexmark

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
)

// LoadConfig says where and how Load writes the events.
type LoadConfig struct {
	// Brokers are the Kafka bootstrap servers. Required.
	Brokers []string
	// Events is how many events to write, from event 0. Required, > 0.
	Events int64
	// Format is the value format. Default JSON.
	Format Format
	// RegistryURL is the schema registry AVRO registers its schemas with.
	// Required for AVRO.
	RegistryURL string
	// Partitions is the partition count of topics Load creates. Default 1.
	Partitions int32
	// Paced writes event n no earlier than n/Rate seconds after the start,
	// so the topics fill at the configured rate; default false (as fast as
	// the broker takes them).
	Paced bool
	// NoSideInput leaves out q13's side input (topic nexmark-side,
	// NumSideKeys rows written before the events). Default false.
	NoSideInput bool
	// Progress, when set, gets a line per tenth of the events.
	Progress io.Writer
}

func (c LoadConfig) withDefaults() LoadConfig {
	if c.Format == "" {
		c.Format = FormatJSON
	}
	if c.Partitions == 0 {
		c.Partitions = 1
	}
	return c
}

func (c LoadConfig) validate() error {
	switch {
	case len(c.Brokers) == 0:
		return errors.New("nexmark: no bootstrap servers given")
	case c.Events <= 0:
		return fmt.Errorf("nexmark: events %d: want a count above 0", c.Events)
	case c.Partitions < 0:
		return fmt.Errorf("nexmark: partitions %d: want 1 or more", c.Partitions)
	case c.Format.NeedsRegistry() && c.RegistryURL == "":
		return fmt.Errorf("nexmark: format %s writes schema ids: give the schema registry's URL", c.Format)
	}
	return nil
}

// Counts are the events written, per kind, and the side input's rows.
type Counts struct{ Persons, Auctions, Bids, Sides int64 }

// Load creates the three topics and the side input's (keeping ones that
// exist), writes the side input, then events 0 … Events-1 of g in event
// order, each record stamped with its event time. It returns once every record is acknowledged, or
// with the first error.
func Load(ctx context.Context, g *Generator, c LoadConfig) (Counts, error) {
	c = c.withDefaults()
	if err := c.validate(); err != nil {
		return Counts{}, err
	}
	// Uncompressed, as a Kafka producer writes by default
	// (compression.type none) and as the engine's own clients do;
	// franz-go's own default would be snappy (see doc.go).
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers...), kgo.ProducerLinger(5*time.Millisecond),
		kgo.ProducerBatchMaxBytes(1<<20), kgo.MaxBufferedRecords(1<<16),
		kgo.ProducerBatchCompression(kgo.NoCompression()))
	if err != nil {
		return Counts{}, fmt.Errorf("nexmark: kafka client: %w", err)
	}
	defer cl.Close()
	if err := createTopics(ctx, kadm.NewClient(cl), c); err != nil {
		return Counts{}, err
	}
	enc, err := newEncoder(ctx, c)
	if err != nil {
		return Counts{}, err
	}
	return produce(ctx, cl, g, enc, c)
}

func createTopics(ctx context.Context, adm *kadm.Client, c LoadConfig) error {
	topics := []string{TopicPerson, TopicAuction, TopicBid}
	if !c.NoSideInput {
		topics = append(topics, TopicSide)
	}
	// Event times are synthetic and may lie in the past: keep them all.
	cfg := map[string]*string{"retention.ms": ptr("-1")}
	resp, err := adm.CreateTopics(ctx, c.Partitions, 1, cfg, topics...)
	if err != nil {
		return fmt.Errorf("nexmark: creating topics on %s: %w (is the broker up?)", strings.Join(c.Brokers, ","), err)
	}
	for _, t := range resp.Sorted() {
		if t.Err != nil && !errors.Is(t.Err, kerr.TopicAlreadyExists) {
			return fmt.Errorf("nexmark: creating topic %s: %w", t.Topic, t.Err)
		}
	}
	return nil
}

func ptr(s string) *string { return &s }

// encoder turns an event into its record value.
type encoder func(b []byte, ev Event) []byte

func newEncoder(ctx context.Context, c LoadConfig) (encoder, error) {
	if c.Format == FormatJSON {
		return AppendJSON, nil
	}
	rc, err := sr.NewClient(sr.URLs(c.RegistryURL))
	if err != nil {
		return nil, fmt.Errorf("nexmark: schema registry %s: %w", c.RegistryURL, err)
	}
	sf := srFormats()[c.Format]
	var headers [4][]byte
	for k := KindPerson; k <= KindSide; k++ {
		if k == KindSide && c.NoSideInput {
			continue
		}
		subject := k.Topic() + "-value"
		ss, err := rc.CreateSchema(ctx, subject, sr.Schema{Schema: sf.schema(k), Type: sf.typ})
		if err != nil {
			return nil, fmt.Errorf("nexmark: registering %s at %s: %w", subject, c.RegistryURL, err)
		}
		var h sr.ConfluentHeader
		if headers[k], err = h.AppendEncode(nil, ss.ID, sf.index); err != nil {
			return nil, err
		}
	}
	return func(b []byte, ev Event) []byte {
		return sf.payload(append(b, headers[ev.Kind]...), ev)
	}, nil
}

// srFormat is what one schema-registry format registers and writes.
type srFormat struct {
	typ     sr.SchemaType
	schema  func(Kind) string
	index   []int // the protobuf message index (the schema's only message)
	payload encoder
}

func srFormats() map[Format]srFormat {
	return map[Format]srFormat{
		FormatAvro:     {sr.TypeAvro, AvroSchema, nil, AppendAvro},
		FormatJSONSR:   {sr.TypeJSON, JSONSchema, nil, AppendJSONSR},
		FormatProtobuf: {sr.TypeProtobuf, ProtoSchema, []int{0}, AppendProtobuf},
	}
}

func produce(ctx context.Context, cl *kgo.Client, g *Generator, enc encoder, c LoadConfig) (Counts, error) {
	var (
		mu       sync.Mutex
		firstErr error
		counts   Counts
	)
	done := func(r *kgo.Record, err error) {
		if err != nil {
			mu.Lock()
			if firstErr == nil {
				firstErr = fmt.Errorf("nexmark: producing to %s: %w", r.Topic, err)
			}
			mu.Unlock()
		}
	}
	if !c.NoSideInput {
		for k := range int64(NumSideKeys) {
			ev := g.Side(k)
			counts.Sides++
			cl.Produce(ctx, &kgo.Record{Topic: TopicSide, Key: Key(ev), Value: enc(nil, ev), Timestamp: time.UnixMilli(ev.DateTime())}, done)
		}
	}
	start := time.Now()
	for n := range c.Events {
		if err := pace(ctx, c, g, start, n); err != nil {
			return counts, err
		}
		ev := g.Event(n)
		counts.add(ev.Kind)
		r := &kgo.Record{Topic: ev.Kind.Topic(), Key: Key(ev), Value: enc(nil, ev), Timestamp: time.UnixMilli(ev.DateTime())}
		cl.Produce(ctx, r, done)
		if c.Progress != nil && (n+1)%max(c.Events/10, 1) == 0 {
			fmt.Fprintf(c.Progress, "nexmark: %d of %d events queued\n", n+1, c.Events)
		}
	}
	if err := cl.Flush(ctx); err != nil {
		return counts, fmt.Errorf("nexmark: flushing: %w", err)
	}
	mu.Lock()
	defer mu.Unlock()
	return counts, firstErr
}

// pace waits until event n is due when c.Paced, and reports a cancelled
// context.
func pace(ctx context.Context, c LoadConfig, g *Generator, start time.Time, n int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !c.Paced {
		return nil
	}
	due := start.Add(time.Duration(g.Timestamp(n)-g.base) * time.Millisecond)
	if d := time.Until(due); d > 0 {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (c *Counts) add(k Kind) {
	switch k {
	case KindPerson:
		c.Persons++
	case KindAuction:
		c.Auctions++
	case KindSide:
		c.Sides++
	default:
		c.Bids++
	}
}
