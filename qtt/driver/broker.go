package driver

import (
	"context"
	"log/slog"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/broker"
	"github.com/sqlstream/sqlstream/internal/qttmode"
	"github.com/sqlstream/sqlstream/qtt"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// brokerDriver runs a variant end to end: an embedded broker of its own,
// an engine on it with a short commit interval, records produced and
// consumed over the Kafka protocol. Drain waits until every query has
// caught up, then reads what the queries wrote.
type brokerDriver struct {
	b     *broker.Broker
	eng   *runtime.Engine
	cl    *kgo.Client
	adm   *kadm.Client
	props map[string]any
	read  map[string]map[int32]int64 // next offset to read per topic partition
	dir   string                     // the engine's state, removed on Close
}

// timeout bounds one variant's waits.
const timeout = 20 * time.Second

func newBroker(topics []qtt.Topic, over map[string]any, engProps map[string]string) (*brokerDriver, error) {
	b, err := broker.Start(broker.WithListen("127.0.0.1:0"), broker.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		return nil, err
	}
	engProps[props.CommitInterval] = "10"
	if _, ok := engProps[props.OffsetReset]; !ok {
		engProps[props.OffsetReset] = "earliest"
	}
	dir, err := os.MkdirTemp("", "sqlstream-qtt-")
	if err != nil {
		b.Close()
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	reg := newRegistry()
	if err := reg.registerTopics(topics); err != nil {
		b.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	eng, err := runtime.New(ctx, runtime.WithBootstrap(b.Addrs()), runtime.WithProperties(engProps), runtime.WithDataDir(dir),
		runtime.WithQTT(qttmode.Mode{Naming: true, CreateMissingTopics: true}), runtime.WithLogger(slog.New(slog.DiscardHandler)),
		runtime.WithServiceID(ServiceID), runtime.WithSchemaRegistry(reg))
	if err != nil {
		b.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		eng.Close()
		b.Close()
		return nil, err
	}
	return &brokerDriver{b: b, eng: eng, cl: cl, adm: kadm.NewClient(cl), props: over, read: map[string]map[int32]int64{}, dir: dir}, nil
}

func (d *brokerDriver) Execute(stmt string) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	_, err := d.eng.Execute(ctx, api.KsqlRequest{Ksql: stmt, StreamsProperties: d.props})
	return err
}

// Produce writes the record, choosing the partition the way the in-memory
// driver does (murmur2 of the key) so both modes agree.
func (d *brokerDriver) Produce(r qtt.Record) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	n, err := d.partitions(ctx, r.Topic)
	if err != nil {
		return err
	}
	p := r.Partition
	if p < 0 {
		p = runtime.DefaultPartition(r.Key, n)
	}
	kr := &kgo.Record{Topic: r.Topic, Partition: p, Key: r.Key, Value: r.Value, Timestamp: time.UnixMilli(r.Timestamp)}
	for _, h := range r.Headers {
		kr.Headers = append(kr.Headers, kgo.RecordHeader{Key: h.Key, Value: h.Value})
	}
	return d.cl.ProduceSync(ctx, kr).FirstErr()
}

func (d *brokerDriver) partitions(ctx context.Context, topic string) (int32, error) {
	td, err := d.adm.ListTopics(ctx, topic)
	if err != nil {
		return 0, err
	}
	if t, ok := td[topic]; ok && t.Err == nil {
		return int32(len(t.Partitions)), nil
	}
	if _, err := d.adm.CreateTopic(ctx, 1, 1, nil, topic); err != nil {
		return 0, err
	}
	return 1, nil
}

// Drain waits for the queries to catch up and returns the new records of
// every non-internal topic written by a query.
func (d *brokerDriver) Drain() []qtt.Record {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := d.eng.Quiesce(ctx); err != nil {
		return nil
	}
	var out []qtt.Record
	for _, topic := range d.sinkTopics() {
		out = append(out, d.readNew(ctx, topic)...)
	}
	return out
}

func (d *brokerDriver) sinkTopics() []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range d.Sources() {
		if s.IsSink && !seen[s.Topic] {
			seen[s.Topic] = true
			out = append(out, s.Topic)
		}
	}
	sort.Strings(out)
	return out
}

// readNew reads topic from the last read offsets to its current end.
func (d *brokerDriver) readNew(ctx context.Context, topic string) []qtt.Record {
	ends, err := d.adm.ListEndOffsets(ctx, topic)
	if err != nil {
		return nil
	}
	from := d.read[topic]
	if from == nil {
		from = map[int32]int64{}
		d.read[topic] = from
	}
	offsets := map[int32]kgo.Offset{}
	want := 0
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > from[o.Partition] {
			offsets[o.Partition] = kgo.NewOffset().At(from[o.Partition])
			want += int(o.Offset - from[o.Partition])
			from[o.Partition] = o.Offset
		}
	})
	if want == 0 {
		return nil
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(d.b.Addrs()...), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: offsets}))
	if err != nil {
		return nil
	}
	defer cl.Close()
	var out []qtt.Record
	for len(out) < want && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			rec := qtt.Record{Topic: r.Topic, Partition: r.Partition, Key: r.Key, Value: r.Value, Timestamp: r.Timestamp.UnixMilli()}
			for _, h := range r.Headers {
				rec.Headers = append(rec.Headers, qtt.Header{Key: h.Key, Value: h.Value})
			}
			out = append(out, rec)
		})
	}
	return out
}

func (d *brokerDriver) Sources() []qtt.SourceInfo { return sourcesOf(d.eng.Catalog()) }

func (d *brokerDriver) Topics() []qtt.TopicInfo {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	td, err := d.adm.ListTopics(ctx)
	if err != nil {
		return nil
	}
	var out []qtt.TopicInfo
	for _, t := range td.Sorted() {
		if !strings.HasPrefix(t.Topic, "_") && !strings.HasSuffix(t.Topic, "ksql_processing_log") {
			out = append(out, qtt.TopicInfo{Name: t.Topic, Partitions: int32(len(t.Partitions))})
		}
	}
	return out
}

func (d *brokerDriver) Close() error {
	d.cl.Close()
	err := d.eng.Close()
	if cerr := d.b.Close(); err == nil {
		err = cerr
	}
	os.RemoveAll(d.dir)
	return err
}

func (d *brokerDriver) createTopic(name string, partitions int32) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	resp, err := d.adm.CreateTopic(ctx, partitions, 1, nil, name)
	if err == nil {
		err = resp.Err
	}
	return err
}
