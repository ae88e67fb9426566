package exec

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Kafka runs queries on a real Kafka cluster (or the embedded
// kfake broker) through franz-go.
type Kafka struct {
	seeds  []string
	cl     *kgo.Client // admin requests and synchronous produces
	adm    *kadm.Client
	logger *slog.Logger
	// base are the options of every client: the seeds and runtime/kafkasec's.
	base []kgo.Opt
	// globalCheck is how often a global table's follower looks for
	// partitions added to its topic (KafkaConfig.GlobalCheck).
	globalCheck time.Duration
}

// KafkaConfig is how the engine reaches Kafka.
type KafkaConfig struct {
	Seeds  []string
	Logger *slog.Logger
	// Security are the client options runtime/kafkasec made (TLS, SASL).
	Security []kgo.Opt
	// GlobalCheck is how often a global table's follower looks for
	// partitions added to its topic; 0: every 10 s.
	GlobalCheck time.Duration
}

const defaultGlobalPartitionCheck = 10 * time.Second

// NewKafka connects to the cluster (lazily: Ping checks it answers).
func NewKafka(c KafkaConfig) (*Kafka, error) {
	k := &Kafka{seeds: c.Seeds, logger: c.Logger, globalCheck: c.GlobalCheck,
		base: append([]kgo.Opt{kgo.SeedBrokers(c.Seeds...)}, c.Security...)}
	if k.globalCheck <= 0 {
		k.globalCheck = defaultGlobalPartitionCheck
	}
	// A short metadata min age: kgo caches metadata answers (including
	// "unknown topic") for admin requests that long, and statements check
	// topics right after creating them.
	cl, err := k.Client(kgo.ProducerLinger(0), kgo.RecordPartitioner(Partitioner()), kgo.MetadataMinAge(10*time.Millisecond))
	if err != nil {
		return nil, fmt.Errorf("kafka client: %w", err)
	}
	k.cl, k.adm = cl, kadm.NewClient(cl)
	return k, nil
}

// baseOpts are the options every client of the engine starts with: the
// cluster's seeds and security, and Kafka's producer default,
// compression.type=none, which ksqlDB's (Kafka Streams') clients write
// with unless a query sets it (franz-go's own default is snappy); a
// query's compression.type (runtime/kafkasec) comes after them and wins.
// The compression option is made anew for each client: franz-go
// deduplicates an option's codecs in place when it builds the client,
// so one shared option would race between clients made concurrently.
func (k *Kafka) baseOpts() []kgo.Opt {
	return append(append(make([]kgo.Opt, 0, len(k.base)+1), k.base...),
		kgo.ProducerBatchCompression(kgo.NoCompression()))
}

// Client makes a Kafka client with baseOpts and opts: every client of
// the engine is made here or from baseOpts.
func (k *Kafka) Client(opts ...kgo.Opt) (*kgo.Client, error) {
	return kgo.NewClient(append(k.baseOpts(), opts...)...)
}

// Ping implements Cluster: it checks that the cluster answers, for start-up and /healthcheck.
func (k *Kafka) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err := k.adm.BrokerMetadata(ctx)
	return err
}

func (k *Kafka) Partitions(ctx context.Context, topic string) (int32, bool, error) {
	n, ok, err := k.lookupPartitions(ctx, topic)
	if err == nil && !ok {
		// A negative answer may come from kgo's metadata cache (at most
		// MetadataMinAge old): ask once more after it expired.
		time.Sleep(20 * time.Millisecond)
		n, ok, err = k.lookupPartitions(ctx, topic)
	}
	return n, ok, err
}

func (k *Kafka) lookupPartitions(ctx context.Context, topic string) (int32, bool, error) {
	td, err := k.adm.ListTopics(ctx, topic)
	if err != nil {
		return 0, false, err
	}
	t, ok := td[topic]
	if !ok || errors.Is(t.Err, kerr.UnknownTopicOrPartition) {
		return 0, false, nil
	}
	if t.Err != nil {
		return 0, false, t.Err
	}
	return int32(len(t.Partitions)), true, nil
}

func (k *Kafka) CreateTopic(ctx context.Context, t TopicSpec) error {
	configs := map[string]*string{}
	for key, v := range t.Configs {
		configs[key] = kadm.StringPtr(v)
	}
	replicas := t.Replicas
	if replicas <= 0 {
		replicas = -1
	}
	resp, err := k.adm.CreateTopic(ctx, t.Partitions, replicas, configs, t.Name)
	if resp.Err != nil {
		// kadm returns the topic's error as err too, without its message.
		err = brokerError(resp.Err, resp.ErrMessage)
	}
	if errors.Is(err, kerr.TopicAlreadyExists) {
		return nil
	}
	return err
}

// brokerError is err (a Kafka error code) told with the broker's own
// message when it sent one. The code's generic description can mislead:
// INVALID_PARTITIONS reads "Number of partitions is below 1." even when
// the broker refused a count above its limit and said so.
func brokerError(err error, msg string) error {
	if err == nil || msg == "" {
		return err
	}
	return &kafkaError{code: err, msg: msg}
}

// kafkaError is a broker's refusal: its message, then the code's name;
// errors.Is still matches the kerr code.
type kafkaError struct {
	code error
	msg  string
}

func (e *kafkaError) Error() string {
	name := e.code.Error()
	var ke *kerr.Error
	if errors.As(e.code, &ke) {
		name = ke.Message
	}
	return e.msg + " (" + name + ")"
}

func (e *kafkaError) Unwrap() error { return e.code }

func (k *Kafka) DeleteTopic(ctx context.Context, topic string) error {
	resp, err := k.adm.DeleteTopics(ctx, topic)
	if err != nil {
		return err
	}
	if r, ok := resp[topic]; ok && r.Err != nil && !errors.Is(r.Err, kerr.UnknownTopicOrPartition) {
		return r.Err
	}
	return nil
}

func (k *Kafka) ListTopics(ctx context.Context) ([]TopicInfo, error) {
	td, err := k.adm.ListTopicsWithInternal(ctx)
	if err != nil {
		return nil, err
	}
	var out []TopicInfo
	for _, t := range td.Sorted() {
		if t.Err != nil {
			continue
		}
		repl := 0
		if len(t.Partitions) > 0 {
			repl = len(t.Partitions[0].Replicas)
		}
		out = append(out, TopicInfo{Name: t.Topic, Partitions: int32(len(t.Partitions)), Replicas: repl, Internal: t.IsInternal || strings.HasPrefix(t.Topic, "__")})
	}
	return out, nil
}

func (k *Kafka) Produce(ctx context.Context, recs ...*physical.OutRecord) error {
	krs := make([]*kgo.Record, len(recs))
	for i, r := range recs {
		krs[i] = ToKgo(r)
	}
	return k.cl.ProduceSync(ctx, krs...).FirstErr()
}

// ToKgo converts an output record to a franz-go record.
func ToKgo(r *physical.OutRecord) *kgo.Record {
	kr := &kgo.Record{}
	fillKgo(kr, r)
	return kr
}

// fillKgo sets an empty kr (whose Headers may have capacity to reuse)
// from r.
func fillKgo(kr *kgo.Record, r *physical.OutRecord) {
	kr.Topic, kr.Key, kr.Value, kr.Timestamp = r.Topic, r.Key, r.Value, time.UnixMilli(r.Timestamp)
	switch {
	case r.Partition >= 0:
		kr.Partition, kr.Context = r.Partition, manualCtx
	case r.PartitionKey != nil:
		kr.Context = placedBy(r.Key, r.PartitionKey)
	}
	for _, h := range r.Headers {
		kr.Headers = append(kr.Headers, kgo.RecordHeader{Key: h.Key, Value: h.Value})
	}
}

func fromKgo(r *kgo.Record, dst *physical.InRecord) {
	*dst = physical.InRecord{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset,
		Key: r.Key, Value: r.Value, Timestamp: r.Timestamp.UnixMilli(), Headers: inHeaders(r.Headers)}
}

// read consumes topic directly (no group), read_committed: records of
// open transactions wait for their end, aborted ones are never seen.
// untilEnd stops at the end offsets (high watermarks) at the start; the
// client keeps control records (not passed to fn) so that an end that is
// a transaction marker is reached too.
func (k *Kafka) Read(ctx context.Context, topic string, fromBeginning, untilEnd bool, fn func(*physical.InRecord) bool) error {
	var ends map[int32]int64
	if untilEnd {
		var err error
		if ends, err = k.nonEmptyEnds(ctx, topic); err != nil {
			return err
		}
		if len(ends) == 0 {
			return nil
		}
	}
	reset := kgo.NewOffset().AtEnd()
	if fromBeginning {
		reset = kgo.NewOffset().AtStart()
	}
	cl, err := k.Client(kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(reset),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())
	if err != nil {
		return err
	}
	defer cl.Close()
	return readLoop(ctx, cl, ends, fn)
}

// nonEmptyEnds returns the end offset of every partition of topic that
// holds records (its end is past its start: retention or DeleteRecords
// can empty a partition whose end is not 0).
func (k *Kafka) nonEmptyEnds(ctx context.Context, topic string) (map[int32]int64, error) {
	listedEnds, err := k.adm.ListEndOffsets(ctx, topic)
	if err != nil {
		return nil, err
	}
	starts, err := k.adm.ListStartOffsets(ctx, topic)
	if err != nil {
		return nil, err
	}
	ends := map[int32]int64{}
	listedEnds.Each(func(o kadm.ListedOffset) {
		if start, ok := starts.Lookup(topic, o.Partition); ok && o.Offset > start.Offset {
			ends[o.Partition] = o.Offset
		}
	})
	return ends, nil
}

// readLoop passes the records of cl's topic to fn until fn returns false,
// ctx ends or, with ends, every partition reached its end: a record at or
// past end-1 ends a partition (past it when the transaction whose record
// was last at the start aborted: only its marker comes), and only records
// before end are passed on.
func readLoop(ctx context.Context, cl *kgo.Client, ends map[int32]int64, fn func(*physical.InRecord) bool) error {
	var in physical.InRecord
	for {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := FetchErr(fs); err != nil {
			return err
		}
		stop := false
		fs.EachRecord(func(r *kgo.Record) {
			if stop {
				return
			}
			if ends != nil {
				end, ok := ends[r.Partition]
				if !ok {
					return
				}
				if r.Offset >= end-1 {
					delete(ends, r.Partition)
				}
				if r.Offset >= end {
					return
				}
			}
			if r.Attrs.IsControl() {
				return
			}
			fromKgo(r, &in)
			stop = !fn(&in)
		})
		if stop || (ends != nil && len(ends) == 0) {
			return nil
		}
	}
}

// FetchErr returns the first fetch error that is not a context end.
func FetchErr(fs kgo.Fetches) error {
	var first error
	fs.EachError(func(t string, p int32, err error) {
		if first == nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			first = fmt.Errorf("fetch %s[%d]: %w", t, p, err)
		}
	})
	return first
}

func (k *Kafka) Close() { k.cl.Close() }
