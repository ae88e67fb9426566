package runtime_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// fetchWaits records the max wait of every fetch the broker is sent, by
// the topic fetched (name or id): what a consumer's fetch.max.wait.ms
// became on the wire.
type fetchWaits struct {
	mu    sync.Mutex
	waits map[string][]int32 // topic name, or id as %x
}

func observeFetches(c *kfake.Cluster) *fetchWaits {
	w := &fetchWaits{waits: map[string][]int32{}}
	c.ControlKey(int16(kmsg.Fetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		fr := req.(*kmsg.FetchRequest)
		w.mu.Lock()
		defer w.mu.Unlock()
		for _, t := range fr.Topics {
			key := t.Topic
			if key == "" {
				key = fmt.Sprintf("%x", t.TopicID)
			}
			w.waits[key] = append(w.waits[key], fr.MaxWaitMillis)
		}
		return nil, nil, false
	})
	return w
}

// of returns the waits of the fetches of topics whose name contains part.
func (w *fetchWaits) of(t *testing.T, adm *kadm.Client, part string) []int32 {
	t.Helper()
	topics, err := adm.ListTopics(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []int32
	for name, td := range topics {
		if strings.Contains(name, part) {
			out = append(out, w.waits[name]...)
			out = append(out, w.waits[fmt.Sprintf("%x", [16]byte(td.ID))]...)
		}
	}
	return out
}

// TestConsumerPrefixesReachTheirConsumers: restore.consumer.* and
// global.consumer.* settings reach the restore consumer (which rebuilds
// a store from its changelog) and the global consumer (which loads a
// global table), each overriding the plain consumer.* setting, which the
// main consumer keeps, as Kafka Streams reads them. Each consumer's
// fetch.max.wait.ms is read off the fetches the broker receives.
func TestConsumerPrefixesReachTheirConsumers(t *testing.T) {
	t.Parallel()
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	waits := observeFetches(c)
	settings := map[string]string{props.CommitInterval: "100", props.OffsetReset: "earliest",
		"ksql.streams.consumer.fetch.max.wait.ms":         "444",
		"ksql.streams.restore.consumer.fetch.max.wait.ms": "777",
		"ksql.streams.global.consumer.fetch.max.wait.ms":  "666"}
	start := func() *runtime.Engine {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		e, err := runtime.New(ctx, runtime.WithBootstrap(c.ListenAddrs()), runtime.WithDataDir(t.TempDir()),
			runtime.WithProperties(settings), runtime.WithLogger(slog.New(slog.DiscardHandler)))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	adm := kadm.NewClient(cl)
	f := &faultRig{t: t, c: c, e: start(), cl: cl, adm: adm}
	f.exec(`CREATE STREAM orders (id VARCHAR KEY, region VARCHAR) WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='JSON', PARTITIONS=1);
	CREATE GLOBAL TABLE regions (rid VARCHAR PRIMARY KEY, name VARCHAR) WITH (KAFKA_TOPIC='regions', VALUE_FORMAT='JSON', PARTITIONS=1);
	CREATE TABLE counts AS SELECT id, COUNT(*) AS n FROM orders GROUP BY id EMIT CHANGES;
	CREATE STREAM by_region AS SELECT o.id, r.name FROM orders o JOIN regions r ON o.region = r.rid;`)
	f.produce("regions", "r1", `{"NAME":"north"}`)
	f.produce("orders", "a", `{"REGION":"r1"}`)
	awaitFact(t, "the count's changelog has a record", func() bool {
		ends, err := adm.ListEndOffsets(context.Background())
		if err != nil {
			return false
		}
		n := int64(0)
		ends.Each(func(o kadm.ListedOffset) {
			if strings.Contains(o.Topic, "changelog") {
				n += o.Offset
			}
		})
		return n > 0
	})
	f.e.Close()

	// A second server with no local state restores the count's store from
	// its changelog.
	f.e = start()
	defer f.e.Close()
	awaitFact(t, "the restore consumer read the changelog", func() bool { return len(waits.of(t, adm, "changelog")) > 0 })
	for topic, want := range map[string]int32{"changelog": 777, "regions": 666, "orders": 444} {
		got := waits.of(t, adm, topic)
		if len(got) == 0 || slices.ContainsFunc(got, func(w int32) bool { return w != want }) {
			t.Errorf("fetches of %s waited %v ms, want %d each", topic, got, want)
		}
	}
}

// awaitFact waits up to 20 s for fact to hold.
func awaitFact(t *testing.T, what string, fact func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !fact(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s: not yet %s", what)
		}
	}
}
