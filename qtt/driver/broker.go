package driver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/broker"
	"github.com/sqlstream/sqlstream/internal/qttmode"
	"github.com/sqlstream/sqlstream/qtt"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// brokerDriver runs a variant end to end: an embedded broker of its own,
// an engine on it with a short commit interval, records produced and
// consumed over the Kafka protocol. Drain (and ReadAll, for the SQL test
// files' ASSERTs) waits until every query has caught up, then reads what
// the queries wrote up to the topics' end offsets.
type brokerDriver struct {
	b     *broker.Broker
	eng   *runtime.Engine
	cl    *kgo.Client
	adm   *kadm.Client
	props map[string]any
	read  map[string]map[int32]int64 // next offset Drain reads per topic partition
	logs  map[string]*topicLog       // what ReadAll has read, per topic
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
	// The engine's data directory is a child of dir, so that what it
	// keeps beside it (the command topic's key) is dir's too.
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
	eng, err := runtime.New(ctx, runtime.WithBootstrap(b.Addrs()), runtime.WithProperties(engProps), runtime.WithDataDir(filepath.Join(dir, "data")),
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
	return &brokerDriver{b: b, eng: eng, cl: cl, adm: kadm.NewClient(cl), props: over, read: map[string]map[int32]int64{}, logs: map[string]*topicLog{}, dir: dir}, nil
}

func (d *brokerDriver) Execute(stmt string) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	_, err := d.eng.Execute(ctx, api.KsqlRequest{Ksql: stmt, StreamsProperties: d.props})
	return err
}

// Produce writes the record, choosing the partition the way the in-memory
// driver does (murmur2 of the key) so both modes agree, and returns once
// the queries have processed it (quiesce), as the in-memory driver's
// Produce does and as ksqlDB's TopologyTestDriver pipes one record at a
// time: a test's records of two topics are processed in the order the
// test gives them, not in the order the tasks happen to fetch them (a
// foreign-key join's right-table change would otherwise overtake the
// subscription of the left row before it, and a stream–stream join's
// out-of-order record meet another stream time). A query that the
// record failed is this Produce's error, as the in-memory driver's.
func (d *brokerDriver) Produce(r qtt.Record) error {
	if err := d.produce(r); err != nil {
		return err
	}
	return d.Settle()
}

func (d *brokerDriver) produce(r qtt.Record) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	n, err := d.partitions(ctx, r.Topic)
	if err != nil {
		return err
	}
	p := r.Partition
	if p < 0 {
		p = exec.DefaultPartition(r.Key, n)
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
func (d *brokerDriver) Drain() ([]qtt.Record, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := d.quiesce(ctx); err != nil {
		return nil, err
	}
	var out []qtt.Record
	for _, topic := range d.sinkTopics() {
		recs, ends, err := d.readFrom(ctx, topic, d.read[topic])
		if err != nil {
			return nil, err
		}
		d.read[topic] = ends
		out = append(out, recs...)
	}
	return out, nil
}

var (
	_ qtt.TopicReader = (*brokerDriver)(nil)
	_ qtt.Settler     = (*brokerDriver)(nil)
)

// Settle implements qtt.Settler: it waits until every query has caught
// up with its inputs (quiesce), within the variant's timeout.
func (d *brokerDriver) Settle() error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return d.quiesce(ctx)
}

// ReadAll implements qtt.TopicReader: once the queries have caught up,
// every record of the topic from its start. The records read before are
// kept, so that each call's answer begins with the previous one's (a
// topic of several partitions is read in the order its fetches came).
func (d *brokerDriver) ReadAll(topic string) ([]qtt.Record, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := d.quiesce(ctx); err != nil {
		return nil, err
	}
	log := d.logs[topic]
	if log == nil {
		log = &topicLog{}
		d.logs[topic] = log
	}
	recs, ends, err := d.readFrom(ctx, topic, log.ends)
	if err != nil {
		return nil, err
	}
	log.recs, log.ends = append(log.recs, recs...), ends
	return slices.Clone(log.recs), nil
}

// topicLog is what ReadAll has read of a topic.
type topicLog struct {
	recs []qtt.Record
	ends map[int32]int64 // next offset to read per partition
}

// quiesce waits until every query has caught up with its inputs. A query
// that has just started may not have formed its consumer group yet, and
// the broker answers the offset fetch with GROUP_ID_NOT_FOUND: that is
// waited for (the group's forming is the fact waited on), within the
// variant's timeout, and is an error past it.
func (d *brokerDriver) quiesce(ctx context.Context) error { return awaitCaughtUp(ctx, d.eng.Quiesce) }

// awaitCaughtUp is quiesce over the engine's Quiesce.
func awaitCaughtUp(ctx context.Context, quiesce func(context.Context) error) error {
	for {
		err := quiesce(ctx)
		switch {
		case err == nil:
			return nil
		case errors.As(err, new(*runtime.QueryFailedError)):
			return err
		case !errors.Is(err, kerr.GroupIDNotFound):
			return fmt.Errorf("the queries did not catch up with their input topics within %s: %w", timeout, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("a query's consumer group had not formed after %s (the broker still answers GROUP_ID_NOT_FOUND), so its output cannot be awaited; SHOW QUERIES says whether it runs: %w", timeout, err)
		case <-time.After(groupPoll):
		}
	}
}

// groupPoll is how often quiesce asks again whether a group has formed.
const groupPoll = 20 * time.Millisecond

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

// readFrom reads topic from the offsets from (per partition; none is the
// start) to its current end offsets, and returns the records and those
// ends. Records of one partition come in offset order.
func (d *brokerDriver) readFrom(ctx context.Context, topic string, from map[int32]int64) ([]qtt.Record, map[int32]int64, error) {
	ends, err := d.adm.ListEndOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("cannot list the end offsets of topic %s: %w", topic, err)
	}
	next := maps.Clone(from)
	if next == nil {
		next = map[int32]int64{}
	}
	offsets := map[int32]kgo.Offset{}
	want := 0
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > next[o.Partition] {
			offsets[o.Partition] = kgo.NewOffset().At(next[o.Partition])
			want += int(o.Offset - next[o.Partition])
			next[o.Partition] = o.Offset
		}
	})
	if want == 0 {
		return nil, next, nil
	}
	recs, err := d.consume(ctx, topic, offsets, want)
	return recs, next, err
}

// consume reads want records of topic from offsets.
func (d *brokerDriver) consume(ctx context.Context, topic string, offsets map[int32]kgo.Offset, want int) ([]qtt.Record, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(d.b.Addrs()...), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: offsets}))
	if err != nil {
		return nil, fmt.Errorf("cannot read topic %s: %w", topic, err)
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
	if len(out) < want {
		return nil, fmt.Errorf("read %d of the %d records of topic %s below its end offsets within %s", len(out), want, topic, timeout)
	}
	return out, nil
}

func (d *brokerDriver) Sources() []qtt.SourceInfo { return sourcesOf(d.eng.Catalog()) }

// Topics lists the topics of the test as the in-memory driver does: the
// sources, sinks and the queries' internal topics (ksqlDB's
// `_confluent-ksql-…` names, which the tests' post.topics check), not the
// broker's own (`__consumer_offsets`, `__transaction_state`), the command
// topic or the processing log.
func (d *brokerDriver) Topics() []qtt.TopicInfo {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	td, err := d.adm.ListTopics(ctx)
	if err != nil {
		return nil
	}
	var out []qtt.TopicInfo
	for _, t := range td.Sorted() {
		if !d.engineOwn(t.Topic) {
			out = append(out, qtt.TopicInfo{Name: t.Topic, Partitions: int32(len(t.Partitions))})
		}
	}
	return out
}

// engineOwn reports a topic the broker or the engine keeps for itself.
func (d *brokerDriver) engineOwn(topic string) bool {
	return strings.HasPrefix(topic, "__") || topic == "_"+ServiceID+"_command_topic" || topic == d.eng.ProcessingLogTopic()
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
