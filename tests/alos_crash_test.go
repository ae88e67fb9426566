package tests

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// alosCrashConfig is an at_least_once server that commits only when it
// stops or loses partitions (a 10-minute interval), so a kill -9 lands
// before the commit of everything since the last one; its 256-byte
// caches make it release outputs before the commit, once a batch's fill
// them (held_output.go). A table's updates leave the output cache
// collapsed per key (physical's outputCache), so what fills the cache is
// distinct keys, not a key's 40 updates: a partition's few keys fill 256
// bytes, not 1 KiB.
const alosCrashConfig = "ksql.streams.processing.guarantee=at_least_once\nksql.streams.commit.interval.ms=600000\n" +
	"ksql.streams.cache.max.bytes.buffering=256\n" +
	"ksql.streams.session.timeout.ms=6000\nsqlstream.command.topic.secret=shared-secret-of-this-service\n"

const alosCrashKeys = 12

// alosCrashRun is an at_least_once count of events per key, read back
// from its sink topic (killRun.sink, read_committed).
type alosCrashRun struct {
	*killRun
	cl *kgo.Client
}

func startALOSCrashRun(t *testing.T, servers int) (*alosCrashRun, []*node) {
	kafka := startBroker(t, t.TempDir()).Addrs()[0]
	cfg := writeConfig(t, alosCrashConfig)
	var ns []*node
	for range servers {
		ns = append(ns, startServerOn(t, kafka, "--config", cfg))
	}
	ns[0].mustKsql(`CREATE STREAM ev (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='ev', VALUE_FORMAT='JSON', PARTITIONS=4);`)
	ns[0].mustKsql(`SET 'auto.offset.reset'='earliest'; CREATE TABLE counts WITH (KAFKA_TOPIC='counts') AS SELECT k, COUNT(*) AS n FROM ev GROUP BY k;`)
	r := &alosCrashRun{killRun: &killRun{t: t, kafka: kafka, node: ns[0]}, cl: kafkaClient(t, kafka)}
	return r, ns
}

// produceEach writes n events for every key in one produce, so each
// partition's events arrive in one fetch and the store's cache absorbs
// them (the case where the changelog lagged the sink).
func (r *alosCrashRun) produceEach(n int) {
	var batch []*kgo.Record
	for i := range n {
		for k := range alosCrashKeys {
			batch = append(batch, &kgo.Record{Topic: "ev", Key: fmt.Appendf(nil, "k%02d", k), Value: fmt.Appendf(nil, `{"V":%d}`, i)})
		}
	}
	if err := r.cl.ProduceSync(timeoutCtx(r.t), batch...).FirstErr(); err != nil {
		r.t.Fatal(err)
	}
}

// awaitAtLeast waits until every key's last count in the sink is at
// least its floor plus more, and returns the last counts.
func (r *alosCrashRun) awaitAtLeast(floor map[string]int, more int) map[string]int {
	r.t.Helper()
	var last map[string]int
	eventuallyWithin(r.t, "sink counts", 120*time.Second, func() error {
		last = map[string]int{}
		for k, s := range r.sink() {
			last[k] = s[len(s)-1]
		}
		for k := range alosCrashKeys {
			key := fmt.Sprintf("k%02d", k)
			if last[key] < floor[key]+more {
				return fmt.Errorf("%s at %d, want at least %d", key, last[key], floor[key]+more)
			}
		}
		return nil
	})
	return last
}

// neverBackwards fails the test for every key whose count in the sink
// went down: a restored state older than what the sink already showed.
func (r *alosCrashRun) neverBackwards(when string) {
	r.t.Helper()
	for k, s := range r.sink() {
		for i := 1; i < len(s); i++ {
			if s[i] < s[i-1] {
				r.t.Fatalf("%s: %s went from %d back to %d (sequence %v)", when, k, s[i-1], s[i], s)
			}
		}
	}
}

// group is the consumer group of the count (its one query's).
func (r *alosCrashRun) group(n *node) string {
	r.t.Helper()
	_, raw := n.post("/ksql", "application/vnd.ksql.v1+json", map[string]any{"ksql": "SHOW QUERIES;"})
	ids := listed(r.t, raw, "queries", "id")
	if len(ids) != 1 {
		r.t.Fatalf("queries: %s", raw)
	}
	return "default_query_" + ids[0]
}

// committed reports whether the count's group committed any offset.
func (r *alosCrashRun) committed(n *node) bool {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	offs, err := kadm.NewClient(r.cl).FetchOffsets(ctx, r.group(n))
	if err != nil {
		r.t.Fatal(err)
	}
	some := false
	offs.Each(func(o kadm.OffsetResponse) { some = some || o.At >= 0 })
	return some
}

// awaitMembers waits until the count's group is stable with n members,
// each owning partitions.
func (r *alosCrashRun) awaitMembers(at *node, n int) {
	r.t.Helper()
	group := r.group(at)
	eventuallyWithin(r.t, group+" stable", 90*time.Second, func() error {
		gs, err := kadm.NewClient(r.cl).DescribeGroups(context.Background(), group)
		if err != nil {
			return err
		}
		g := gs[group]
		if g.State != "Stable" || len(g.Members) != n {
			return fmt.Errorf("group %s, %d members", g.State, len(g.Members))
		}
		for _, m := range g.Members {
			if a, ok := m.Assigned.AsConsumer(); !ok || len(a.Topics) == 0 {
				return fmt.Errorf("member %s owns nothing", m.MemberID)
			}
		}
		return nil
	})
}

// TestALOSKillNineNeverGoesBackwards (issue 16, point 6): under
// at_least_once, SIGKILL the server once before its first commit and
// once after a commit, restart it on the same data directory each time,
// and no key's count ever goes down in the sink: the restored state is
// never older than what the sink shows (a count may repeat work after a
// crash, at least once, but never forget it).
func TestALOSKillNineNeverGoesBackwards(t *testing.T) {
	r, ns := startALOSCrashRun(t, 1)
	n := ns[0]
	r.produceEach(40)
	last := r.awaitAtLeast(nil, 40)
	if r.committed(n) {
		t.Fatal("offsets committed already: the first kill must land before the first commit")
	}
	n.kill()
	n.start()
	r.produceEach(40) // a batch that fills the caches again, released before the commit
	last = r.awaitAtLeast(last, 40)
	r.neverBackwards("kill -9 before the first commit")

	n.stop() // commits
	n.start()
	if !r.committed(n) {
		t.Fatal("no offset committed by the stop")
	}
	r.produceEach(40)
	last = r.awaitAtLeast(last, 40)
	n.kill()
	n.start()
	r.produceEach(40)
	r.awaitAtLeast(last, 40)
	r.neverBackwards("kill -9 after a commit")
	n.mustKsql("SHOW QUERIES;") // the server still answers
}

// TestALOSFailoverNeverGoesBackwards: two servers share the count under
// at_least_once; one is SIGKILLed before any commit and the other takes
// its partitions over, restoring them from their changelogs: no key's
// count goes down in the sink.
func TestALOSFailoverNeverGoesBackwards(t *testing.T) {
	r, ns := startALOSCrashRun(t, 2)
	r.awaitMembers(ns[1], 2)
	r.produceEach(40)
	last := r.awaitAtLeast(nil, 40)
	if r.committed(ns[1]) {
		t.Fatal("offsets committed already: the kill must land before the first commit")
	}
	ns[0].kill()
	r.produceEach(40)
	r.awaitAtLeast(last, 40)
	r.neverBackwards("failover after kill -9")
	ns[1].mustKsql("SHOW QUERIES;")
}
