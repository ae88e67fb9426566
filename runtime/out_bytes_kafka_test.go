package runtime_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestOutputsInFlightKeepTheirBytes: the sink encodes every record into
// the same buffers and the runner copies them (physical.BytesCopier), so
// a record the producer still holds must not share them. The broker
// answers the sink's produce requests with a retriable error until the
// sink has been given every record and a request was refused, so the
// first records wait for their retry while the ones after them are
// encoded; once let through, every output is its
// input's key and value, in order, under at_least_once and
// exactly_once_v2.
func TestOutputsInFlightKeepTheirBytes(t *testing.T) {
	for _, guarantee := range []string{"at_least_once", "exactly_once_v2"} {
		t.Run(guarantee, func(t *testing.T) {
			f := newFaultRig(t)
			f.exec(fmt.Sprintf(`CREATE STREAM s (k VARCHAR KEY, v VARCHAR) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);
			  SET 'auto.offset.reset'='earliest';
			  SET 'processing.guarantee'='%s';
			  CREATE STREAM out WITH (KAFKA_TOPIC='out') AS SELECT k, v FROM s;`, guarantee))
			var refused atomic.Int64
			var hold atomic.Bool
			hold.Store(true)
			f.delayProduce("out", &hold, &refused)
			const n = 300
			in := make([]*kgo.Record, n)
			for i := range in {
				v := strings.Repeat(fmt.Sprint(i%10), 1+i%37) // lengths vary: a longer record after a shorter
				in[i] = &kgo.Record{Topic: "s", Key: []byte(fmt.Sprint("key-", i)), Value: []byte(fmt.Sprintf(`{"V":%q}`, v))}
			}
			if err := f.cl.ProduceSync(context.Background(), in...).FirstErr(); err != nil {
				t.Fatal(err)
			}
			f.awaitSinkRecords("CSAS_OUT_1", "Sink-OUT", n)
			awaitRefused(t, &refused) // the sink's first records wait for their retry
			hold.Store(false)
			out := f.consumeCommitted("out", n)
			for i, r := range out {
				if string(r.Key) != string(in[i].Key) || string(r.Value) != string(in[i].Value) {
					t.Fatalf("output %d is %q %s, want %q %s", i, r.Key, r.Value, in[i].Key, in[i].Value)
				}
			}
		})
	}
}

// delayProduce answers every produce to a topic whose name contains part
// with NOT_ENOUGH_REPLICAS (retriable: the client sends the records
// again) while hold is set, counting the requests refused.
func (f *faultRig) delayProduce(part string, hold *atomic.Bool, refused *atomic.Int64) {
	f.t.Helper()
	ids := f.topicIDs(part)
	f.c.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		f.c.KeepControl()
		pr := req.(*kmsg.ProduceRequest)
		if !hold.Load() || !slicesAny(len(pr.Topics), func(i int) bool {
			return ids[pr.Topics[i].TopicID] || pr.Topics[i].Topic != "" && strings.Contains(pr.Topics[i].Topic, part)
		}) {
			return nil, nil, false
		}
		refused.Add(1)
		resp := refusedProduce(pr)
		for i := range resp.Topics {
			for j := range resp.Topics[i].Partitions {
				resp.Topics[i].Partitions[j].ErrorCode = kerr.NotEnoughReplicas.Code
			}
		}
		return resp, nil, true
	})
}

// awaitRefused waits until the broker has refused a produce request.
func awaitRefused(t *testing.T, refused *atomic.Int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for refused.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the broker refused no produce request of the sink")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// topicIDs are the ids of the topics whose names contain part (produce
// v13 names topics by id).
func (f *faultRig) topicIDs(part string) map[[16]byte]bool {
	f.t.Helper()
	topics, err := f.adm.ListTopics(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	ids := map[[16]byte]bool{}
	for name, td := range topics {
		if strings.Contains(name, part) {
			ids[td.ID] = true
		}
	}
	if len(ids) == 0 {
		f.t.Fatalf("no topic matches %q", part)
	}
	return ids
}

// awaitSinkRecords waits until node of query id has received n records.
func (f *faultRig) awaitSinkRecords(id, node string, n int64) {
	f.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		for _, q := range f.e.TaskAssignments() {
			if q.QueryID == id && nodeRecords(q.Figures, node) == n {
				return
			}
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("query %s's %s did not receive %d records", id, node, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// consumeCommitted reads n records of topic from its start, read_committed.
func (f *faultRig) consumeCommitted(topic string, n int) []*kgo.Record {
	f.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(f.c.ListenAddrs()...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		f.t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out []*kgo.Record
	for len(out) < n {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			f.t.Fatalf("consumed %d of %d records from %s", len(out), n, topic)
		}
		out = append(out, fs.Records()...)
	}
	return out
}
