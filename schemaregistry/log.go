package schemaregistry

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// kafkaLog is the _schemas topic: one partition, compacted, read from the
// start by a tail goroutine that applies every record to the state, and
// written with acks=all to partition 0.
type kafkaLog struct {
	cl    *kgo.Client
	adm   *kadm.Client
	topic string
}

func openLog(ctx context.Context, topic string, opts []kgo.Opt) (*kafkaLog, error) {
	// The topic is made sure of by a client that does not consume yet:
	// a consuming client would cache "unknown topic" metadata first.
	setup, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("schema registry: Kafka client: %w", err)
	}
	err = ensureTopic(ctx, kadm.NewClient(setup), topic)
	setup.Close()
	if err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(append(opts,
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}}),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(0),
	)...)
	if err != nil {
		return nil, fmt.Errorf("schema registry: Kafka client: %w", err)
	}
	return &kafkaLog{cl: cl, adm: kadm.NewClient(cl), topic: topic}, nil
}

// ensureTopic creates the topic compacted with one partition, or checks
// that an existing one has one partition: ids are allocated in its order.
func ensureTopic(ctx context.Context, adm *kadm.Client, topic string) error {
	compact := "compact"
	resp, err := adm.CreateTopic(ctx, 1, -1, map[string]*string{"cleanup.policy": &compact}, topic)
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return fmt.Errorf("schema registry: creating topic %s: %w", topic, err)
	}
	if resp.Err != nil && !errors.Is(resp.Err, kerr.TopicAlreadyExists) {
		return fmt.Errorf("schema registry: creating topic %s: %w", topic, resp.Err)
	}
	td, err := adm.ListTopics(ctx, topic)
	if err != nil {
		return fmt.Errorf("schema registry: describing topic %s: %w", topic, err)
	}
	t := td[topic]
	if t.Err != nil {
		return fmt.Errorf("schema registry: describing topic %s: %w", topic, t.Err)
	}
	if n := len(t.Partitions); n != 1 {
		return fmt.Errorf("schema registry: topic %s (kafkastore.topic) has %d partitions; it must have exactly 1: ids are allocated in its order", topic, n)
	}
	return checkCompacted(ctx, adm, topic)
}

// checkCompacted refuses a topic whose records may expire, as Confluent
// does: schemas would be lost with their segments.
func checkCompacted(ctx context.Context, adm *kadm.Client, topic string) error {
	rcs, err := adm.DescribeTopicConfigs(ctx, topic)
	if err != nil {
		return fmt.Errorf("schema registry: reading the configuration of topic %s: %w", topic, err)
	}
	rc, err := rcs.On(topic, nil)
	if err == nil {
		err = rc.Err
	}
	if err != nil {
		return fmt.Errorf("schema registry: reading the configuration of topic %s: %w", topic, err)
	}
	for _, c := range rc.Configs {
		if c.Key == "cleanup.policy" && !strings.Contains(c.MaybeValue(), "compact") {
			return fmt.Errorf("schema registry: topic %s (kafkastore.topic) has cleanup.policy=%s; it must be compact, or schemas are lost as its segments expire (kafka-configs --alter --add-config cleanup.policy=compact)", topic, c.MaybeValue())
		}
	}
	return nil
}

// append writes one record and returns its offset.
func (l *kafkaLog) append(ctx context.Context, key, value []byte) (int64, error) {
	r, err := l.cl.ProduceSync(ctx, &kgo.Record{Topic: l.topic, Partition: 0, Key: key, Value: value}).First()
	if err != nil {
		return 0, fmt.Errorf("writing to %s: %w", l.topic, err)
	}
	return r.Offset, nil
}

// end is the offset the next record will get.
func (l *kafkaLog) end(ctx context.Context) (int64, error) {
	ends, err := l.adm.ListEndOffsets(ctx, l.topic)
	if err != nil {
		return 0, fmt.Errorf("reading the end of %s: %w", l.topic, err)
	}
	o, ok := ends.Lookup(l.topic, 0)
	if !ok {
		return 0, fmt.Errorf("reading the end of %s: no partition 0", l.topic)
	}
	if o.Err != nil {
		return 0, fmt.Errorf("reading the end of %s: %w", l.topic, o.Err)
	}
	return o.Offset, nil
}

// tail polls records until ctx ends, handing each to apply in order.
func (l *kafkaLog) tail(ctx context.Context, apply func(*kgo.Record), fail func(error)) {
	for {
		fs := l.cl.PollFetches(ctx)
		if ctx.Err() != nil || fs.IsClientClosed() {
			return
		}
		fs.EachError(func(_ string, _ int32, err error) { fail(err) })
		fs.EachRecord(apply)
	}
}

func (l *kafkaLog) close() { l.cl.Close() }
