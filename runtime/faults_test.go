package runtime_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// faultRig is an engine on a kfake broker whose requests a test can make
// fail (kfake's control functions): the faults are real broker answers,
// and deterministic.
type faultRig struct {
	t   *testing.T
	c   *kfake.Cluster
	e   *runtime.Engine
	cl  *kgo.Client
	adm *kadm.Client
}

func newFaultRig(t *testing.T, extra ...runtime.Option) *faultRig {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts := append([]runtime.Option{runtime.WithBootstrap(c.ListenAddrs()), runtime.WithDataDir(t.TempDir()),
		runtime.WithProperties(map[string]string{props.CommitInterval: "100"}),
		runtime.WithLogger(slog.New(slog.DiscardHandler))}, extra...)
	e, err := runtime.New(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return &faultRig{t: t, c: c, e: e, cl: cl, adm: kadm.NewClient(cl)}
}

func (f *faultRig) exec(sql string) []api.Entity {
	f.t.Helper()
	out, err := f.e.Execute(context.Background(), api.KsqlRequest{Ksql: sql})
	if err != nil {
		f.t.Fatalf("%s: %v", sql, err)
	}
	return out
}

func (f *faultRig) produce(topic, key, value string) {
	f.t.Helper()
	if err := f.cl.ProduceSync(context.Background(), &kgo.Record{Topic: topic, Key: []byte(key), Value: []byte(value)}).FirstErr(); err != nil {
		f.t.Fatal(err)
	}
}

// refuseProduce makes the broker answer every produce to an existing
// topic whose name contains part with TOPIC_AUTHORIZATION_FAILED (not
// retriable). Produce v13 names topics by id, so the ids are looked up
// first.
func (f *faultRig) refuseProduce(part string) {
	f.t.Helper()
	topics, err := f.adm.ListTopics(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	refused := map[[16]byte]bool{}
	for name, td := range topics {
		if strings.Contains(name, part) {
			refused[td.ID] = true
		}
	}
	if len(refused) == 0 {
		f.t.Fatalf("no topic matches %q", part)
	}
	f.c.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		f.c.KeepControl()
		pr := req.(*kmsg.ProduceRequest)
		if !slicesAny(len(pr.Topics), func(i int) bool {
			return refused[pr.Topics[i].TopicID] || pr.Topics[i].Topic != "" && strings.Contains(pr.Topics[i].Topic, part)
		}) {
			return nil, nil, false
		}
		return refusedProduce(pr), nil, true
	})
}

// refuseListOffsets makes the broker answer every ListOffsets of a topic
// whose name contains part with TOPIC_AUTHORIZATION_FAILED.
func (f *faultRig) refuseListOffsets(part string) {
	f.c.ControlKey(int16(kmsg.ListOffsets), func(req kmsg.Request) (kmsg.Response, error, bool) {
		f.c.KeepControl()
		lr := req.(*kmsg.ListOffsetsRequest)
		if !slicesAny(len(lr.Topics), func(i int) bool { return strings.Contains(lr.Topics[i].Topic, part) }) {
			return nil, nil, false
		}
		resp := lr.ResponseKind().(*kmsg.ListOffsetsResponse)
		resp.Version = lr.Version
		for _, t := range lr.Topics {
			rt := kmsg.NewListOffsetsResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewListOffsetsResponseTopicPartition()
				rp.Partition = p.Partition
				rp.ErrorCode = kerr.TopicAuthorizationFailed.Code
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp, nil, true
	})
}

func slicesAny(n int, fn func(int) bool) bool {
	for i := range n {
		if fn(i) {
			return true
		}
	}
	return false
}

// awaitError waits for query id to be in ERROR and returns its
// description (EXPLAIN: state, errors, consumer group).
func (f *faultRig) awaitError(id string) api.QueryDescription {
	f.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		d := f.exec("EXPLAIN " + id + ";")[0].(api.QueryDescriptionEntity).QueryDescription
		if *d.State == "ERROR" {
			return d
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("%s is %s, want ERROR", id, *d.State)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// assertErrorMentions checks the reason is in the query's errors and in
// SHOW QUERIES' state.
func (f *faultRig) assertErrorMentions(d api.QueryDescription, want string) {
	f.t.Helper()
	var msgs []string
	for _, e := range d.QueryErrors {
		msgs = append(msgs, e.ErrorMessage)
	}
	if !strings.Contains(strings.Join(msgs, "\n"), want) {
		f.t.Errorf("query errors %q do not mention %q", msgs, want)
	}
	for _, q := range f.exec("SHOW QUERIES;")[0].(api.QueriesList).Queries {
		if q.ID == d.ID && q.State != "ERROR" {
			f.t.Errorf("SHOW QUERIES: %s is %s", q.ID, q.State)
		}
	}
}

// awaitGroupEmpty waits until the query's consumer group has no member:
// the failed runner left it, so its partitions can go to another server.
func (f *faultRig) awaitGroupEmpty(group string) {
	f.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		gs, err := f.adm.DescribeGroups(context.Background(), group)
		if err == nil && len(gs[group].Members) == 0 {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("group %s still has members (%v)", group, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestRefusedOutputStopsQuery: when the broker refuses the query's
// output records, the commit fails instead of committing the offsets of
// records whose results were lost: the query goes to ERROR with the
// broker's reason and leaves its group.
func TestRefusedOutputStopsQuery(t *testing.T) {
	f := newFaultRig(t)
	f.exec(`CREATE STREAM s (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);
	  SET 'auto.offset.reset'='earliest';
	  CREATE STREAM out WITH (KAFKA_TOPIC='out') AS SELECT k, v FROM s;`)
	f.refuseProduce("out")
	f.produce("s", "a", `{"V":1}`)
	d := f.awaitError("CSAS_OUT_1")
	f.assertErrorMentions(d, kerr.TopicAuthorizationFailed.Message)
	f.awaitGroupEmpty(d.ConsumerGroupID)
	offs, err := f.adm.FetchOffsets(context.Background(), d.ConsumerGroupID)
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := offs.Lookup("s", 0); ok && o.At > 0 {
		t.Errorf("the offset of the lost record was committed (%d)", o.At)
	}
}

// TestFailingTaskLeavesGroup: a task error (here an invalid timestamp with
// ksql.timestamp.throw.on.invalid) ends the poll loop; the client is
// closed, so the member does not keep its partitions without polling.
func TestFailingTaskLeavesGroup(t *testing.T) {
	f := newFaultRig(t)
	f.exec(`CREATE STREAM s (k VARCHAR KEY, ts VARCHAR) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1,
	    TIMESTAMP='ts', TIMESTAMP_FORMAT='yyyy-MM-dd');
	  SET 'auto.offset.reset'='earliest';
	  SET 'ksql.timestamp.throw.on.invalid'='true';
	  CREATE STREAM out WITH (KAFKA_TOPIC='out') AS SELECT k, ts FROM s;`)
	f.produce("s", "a", `{"TS":"not a date"}`)
	d := f.awaitError("CSAS_OUT_1")
	f.assertErrorMentions(d, "TimestampExtractor")
	f.awaitGroupEmpty(d.ConsumerGroupID)
}

// TestFailedRestoreStopsQuery: a store that cannot be restored (here the
// broker refuses to list its changelog's offsets) fails the query; it
// neither goes back to RUNNING nor skips that partition's records.
func TestFailedRestoreStopsQuery(t *testing.T) {
	f := newFaultRig(t)
	f.refuseListOffsets("-changelog")
	f.exec(`CREATE STREAM s (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);
	  SET 'auto.offset.reset'='earliest';
	  CREATE TABLE counts WITH (KAFKA_TOPIC='counts') AS SELECT k, COUNT(*) AS n FROM s GROUP BY k;`)
	f.produce("s", "a", `{"V":1}`)
	d := f.awaitError("CTAS_COUNTS_1")
	f.assertErrorMentions(d, "restoring")
	f.awaitGroupEmpty(d.ConsumerGroupID)
	time.Sleep(300 * time.Millisecond) // three commit intervals
	if d := f.exec("EXPLAIN CTAS_COUNTS_1;")[0].(api.QueryDescriptionEntity).QueryDescription; *d.State != "ERROR" {
		t.Errorf("after the failed restore the query is %s", *d.State)
	}
}

// TestRefusedRepartitionEndsPushQuery: a push query whose repartition
// records the broker refuses ends with the broker's reason instead of
// streaming rows computed without them.
func TestRefusedRepartitionEndsPushQuery(t *testing.T) {
	f := newFaultRig(t)
	f.exec(`CREATE STREAM s (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	rs, err := f.e.Query(context.Background(), `SELECT v, COUNT(*) AS n FROM s GROUP BY v EMIT CHANGES;`,
		map[string]any{"auto.offset.reset": "earliest"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	f.refuseProduce("-repartition")
	f.produce("s", "a", `{"V":1}`)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	row, err := rs.Next(ctx)
	if !errors.Is(err, kerr.TopicAuthorizationFailed) || !strings.Contains(err.Error(), "-repartition") {
		t.Fatalf("push query: row %v, error %v; want the refused repartition write", row, err)
	}
}

// refusedProduce answers every partition of pr with
// TOPIC_AUTHORIZATION_FAILED: the broker refuses the records.
func refusedProduce(pr *kmsg.ProduceRequest) *kmsg.ProduceResponse {
	resp := pr.ResponseKind().(*kmsg.ProduceResponse)
	resp.Version = pr.Version
	for _, t := range pr.Topics {
		rt := kmsg.NewProduceResponseTopic()
		rt.Topic, rt.TopicID = t.Topic, t.TopicID
		for _, p := range t.Partitions {
			rp := kmsg.NewProduceResponseTopicPartition()
			rp.Partition = p.Partition
			rp.ErrorCode = kerr.TopicAuthorizationFailed.Code
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}
