package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// loadCounter counts the records global stores load, by topic and
// partition (runtime.WithGlobalLoadHook).
type loadCounter struct {
	mu sync.Mutex
	n  map[string]int
	// seen is closed at the first record of watch (when set).
	watch string
	seen  chan struct{}
}

func newLoadCounter() *loadCounter { return &loadCounter{n: map[string]int{}} }

func (c *loadCounter) hook(topic string, partition int32, _ int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[topic]++
	key := fmt.Sprintf("%s[%d]", topic, partition)
	c.n[key]++
	if c.watch == key && c.seen != nil {
		close(c.seen)
		c.seen = nil
	}
	return nil
}

// take returns the count of key and resets the counts.
func (c *loadCounter) take(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n[key]
	c.n = map[string]int{}
	return n
}

// expect waits for ch (closed by the engine's side of the test).
func expect(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(20 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

const globalOrders = `CREATE STREAM orders (id VARCHAR KEY, region VARCHAR, total INT)
  WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='JSON', PARTITIONS=1);
CREATE GLOBAL TABLE regions (rid VARCHAR PRIMARY KEY, name VARCHAR)
  WITH (KAFKA_TOPIC='regions', VALUE_FORMAT='JSON', PARTITIONS=1);`

const globalJoin = `CREATE STREAM by_region AS SELECT o.id, r.name, o.total
  FROM orders o JOIN regions r ON o.region = r.rid;`

// TestGlobalLoadOutsideEngineLock holds up a global store's load (a hook
// blocks on its first record): the CREATE that starts the query returns,
// SHOW QUERIES says PENDING, and another CREATE … AS SELECT succeeds
// meanwhile. Once the load goes on, the query runs and an order produced
// during the load joins the table's row (it waited for the load). The
// same at start-up, with the local state lost: the command topic's
// replay does not wait for the load, statements run meanwhile.
func TestGlobalLoadOutsideEngineLock(t *testing.T) {
	g := &loadGate{topic: "regions"}
	r := newRig(t, runtime.WithGlobalLoadHook(g.hook))
	t.Cleanup(g.free) // a failure must not leave a load blocked
	r.exec(globalOrders)
	r.produce("regions", "r1", `{"NAME":"north"}`)
	blocked := g.arm()
	r.exec(globalJoin)
	expect(t, blocked, "the global store's load")
	if st := queryState(r, "CSAS_BY_REGION_2"); st != "PENDING" {
		t.Fatalf("a query loading its global store is %s, want PENDING", st)
	}
	execWhileLoading(t, r, `CREATE STREAM big_orders AS SELECT * FROM orders WHERE total > 0;`)
	r.produce("orders", "a", `{"REGION":"r1","TOTAL":1}`)
	g.free()
	expectRegion(t, r, "BY_REGION", 1, `a={"NAME":"north","TOTAL":1}`)
	expectRegion(t, r, "BIG_ORDERS", 1, `a={"REGION":"r1","TOTAL":1}`)

	r.e.Close()
	r.e = nil
	if err := os.RemoveAll(r.dir + "/state"); err != nil {
		t.Fatal(err)
	}
	blocked = g.arm()
	r.startEngine()
	expect(t, blocked, "the global store's load at start-up")
	if st := queryState(r, "CSAS_BY_REGION_2"); st != "PENDING" {
		t.Fatalf("at start-up, a query loading its global store is %s, want PENDING", st)
	}
	execWhileLoading(t, r, `CREATE STREAM small_orders AS SELECT * FROM orders WHERE total < 0;`)
	r.produce("orders", "b", `{"REGION":"r1","TOTAL":2}`)
	g.free()
	expectRegion(t, r, "BY_REGION", 2, `b={"NAME":"north","TOTAL":2}`)
}

// execWhileLoading runs sql, failing (not hanging) if it does not return.
func execWhileLoading(t *testing.T, r *rig, sql string) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.exec(sql)
	}()
	expect(t, done, sql+" while a global store loads")
}

// loadGate blocks a global store's load of topic at its first record
// once armed, until freed.
type loadGate struct {
	topic            string
	mu               sync.Mutex
	armed            bool
	blocked, release chan struct{}
}

// arm makes the next load block; the channel closes when it does.
func (g *loadGate) arm() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.armed, g.blocked, g.release = true, make(chan struct{}), make(chan struct{})
	return g.blocked
}

func (g *loadGate) hook(topic string, _ int32, _ int64) error {
	g.mu.Lock()
	if topic != g.topic || !g.armed {
		g.mu.Unlock()
		return nil
	}
	g.armed = false
	blocked, release := g.blocked, g.release
	g.mu.Unlock()
	close(blocked)
	<-release
	return nil
}

// free lets a blocked load go on.
func (g *loadGate) free() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.release != nil {
		close(g.release)
		g.release = nil
	}
}

// queryState returns the state SHOW QUERIES gives query id.
func queryState(r *rig, id string) string {
	for _, e := range r.exec(`SHOW QUERIES;`) {
		if l, ok := e.(api.QueriesList); ok {
			for _, q := range l.Queries {
				if q.ID == id {
					return q.State
				}
			}
		}
	}
	return "missing"
}

// TestGlobalStoreCheckpoint: a restart reads only the records added to
// the global table's topic after the store's local checkpoint; once the
// topic is deleted and re-created with fewer records (its offsets are
// behind the checkpoint), the store is wiped and fully reloaded, so a
// row of the old topic no longer joins.
func TestGlobalStoreCheckpoint(t *testing.T) {
	c := newLoadCounter()
	r := newRig(t, runtime.WithGlobalLoadHook(c.hook))
	r.exec(globalOrders)
	for i := range 5 {
		r.produce("regions", fmt.Sprintf("r%d", i), fmt.Sprintf(`{"NAME":"n%d"}`, i))
	}
	r.exec(globalJoin)
	r.produce("orders", "a", `{"REGION":"r1","TOTAL":1}`)
	expectRegion(t, r, "BY_REGION", 1, `a={"NAME":"n1","TOTAL":1}`)
	if n := c.take("regions"); n != 5 {
		t.Fatalf("first start: loaded %d records, want the topic's 5", n)
	}

	r.e.Close()
	r.e = nil
	r.produce("regions", "r5", `{"NAME":"n5"}`)
	r.produce("regions", "r1", `{"NAME":"n1-2"}`)
	r.startEngine()
	r.produce("orders", "b", `{"REGION":"r1","TOTAL":2}`)
	expectRegion(t, r, "BY_REGION", 2, `b={"NAME":"n1-2","TOTAL":2}`)
	if n := c.take("regions"); n != 2 {
		t.Fatalf("restart: loaded %d records, want only the 2 after the checkpoint", n)
	}
	rec := httptest.NewRecorder()
	r.e.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if m := `sqlstream_query_global_records_loaded_total{query="CSAS_BY_REGION_2"} 2`; !strings.Contains(rec.Body.String(), m) {
		t.Fatalf("metrics have no %s:\n%s", m, rec.Body.String())
	}

	r.e.Close()
	r.e = nil
	recreateTopic(t, r, "regions", 1)
	r.produce("regions", "r9", `{"NAME":"n9"}`)
	r.startEngine()
	r.produce("orders", "c", `{"REGION":"r1","TOTAL":3}`)
	r.produce("orders", "d", `{"REGION":"r9","TOTAL":4}`)
	got := values(r.consume("BY_REGION", 3))
	if len(got) != 3 || got[2] != `d={"NAME":"n9","TOTAL":4}` {
		t.Fatalf("after the topic was re-created: got %q, want d joined with n9 and c not joined", got)
	}
	if n := c.take("regions"); n != 1 {
		t.Fatalf("re-created topic: loaded %d records, want a full reload of its 1", n)
	}
}

// recreateTopic deletes topic and creates it again, empty.
func recreateTopic(t *testing.T, r *rig, topic string, partitions int32) {
	t.Helper()
	adm := r.admin()
	ctx := context.Background()
	if _, err := adm.DeleteTopic(ctx, topic); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := adm.CreateTopic(ctx, partitions, 1, nil, topic)
		if err == nil && resp.Err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("re-create %s: %v %v", topic, err, resp.Err)
		}
		time.Sleep(50 * time.Millisecond) // the deletion may still be in progress
	}
}

// admin returns an admin client of the rig's broker, closed at the end.
func (r *rig) admin() *kadm.Client {
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.b.Addrs()...))
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}

// TestGlobalStoreFollowsNewPartitions adds a partition to a global
// table's topic while the query runs: the follower's periodic check finds
// it and loads its records, so an order for a row written there joins.
func TestGlobalStoreFollowsNewPartitions(t *testing.T) {
	c := newLoadCounter()
	c.watch, c.seen = "regions[1]", make(chan struct{})
	seen := c.seen
	r := newRig(t, runtime.WithGlobalLoadHook(c.hook), runtime.WithGlobalPartitionCheck(100*time.Millisecond))
	r.exec(globalOrders)
	r.produce("regions", "r1", `{"NAME":"north"}`)
	r.exec(globalJoin)
	r.produce("orders", "a", `{"REGION":"r1","TOTAL":1}`)
	expectRegion(t, r, "BY_REGION", 1, `a={"NAME":"north","TOTAL":1}`)

	if _, err := r.admin().CreatePartitions(context.Background(), 1, "regions"); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.b.Addrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	rec := &kgo.Record{Topic: "regions", Partition: 1, Key: []byte("r2"), Value: []byte(`{"NAME":"south"}`)}
	if err := cl.ProduceSync(context.Background(), rec).FirstErr(); err != nil {
		t.Fatal(err)
	}
	expect(t, seen, "the load of the new partition regions[1]")
	r.produce("orders", "b", `{"REGION":"r2","TOTAL":2}`)
	expectRegion(t, r, "BY_REGION", 2, `b={"NAME":"south","TOTAL":2}`)
}

// TestGlobalLoadFailureIsAnError fails a global store's load (the load
// hook returns an error for the table's topic): the query goes to ERROR
// with a message saying why, naming the topic and what to do (EXPLAIN's
// queryErrors), and statements keep running.
func TestGlobalLoadFailureIsAnError(t *testing.T) {
	hook := func(topic string, _ int32, _ int64) error {
		if topic == "regions" {
			return errors.New("injected read failure")
		}
		return nil
	}
	r := newRig(t, runtime.WithGlobalLoadHook(hook))
	r.exec(globalOrders)
	r.produce("regions", "r1", `{"NAME":"north"}`)
	r.exec(globalJoin)
	deadline := time.Now().Add(20 * time.Second)
	for queryState(r, "CSAS_BY_REGION_2") != "ERROR" {
		if time.Now().After(deadline) {
			t.Fatalf("query is %s, want ERROR after its global store failed to load", queryState(r, "CSAS_BY_REGION_2"))
		}
		time.Sleep(20 * time.Millisecond) // polling the state, not an assertion
	}
	var msgs []string
	for _, e := range r.exec(`EXPLAIN CSAS_BY_REGION_2;`) {
		if d, ok := e.(api.QueryDescriptionEntity); ok {
			for _, qe := range d.QueryDescription.QueryErrors {
				msgs = append(msgs, qe.ErrorMessage)
			}
		}
	}
	if len(msgs) == 0 {
		t.Fatal("EXPLAIN shows no query error after a failed global store load")
	}
	for _, want := range []string{"could not load the global table store", "[regions]", "injected read failure", "restart the server"} {
		if !strings.Contains(msgs[len(msgs)-1], want) {
			t.Fatalf("EXPLAIN's last query error does not say %q: %q", want, msgs[len(msgs)-1])
		}
	}
}
