package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// scaleoutConfig is the configuration both servers of one service id
// share: the command-topic secret lets each verify what the other wrote.
const scaleoutConfig = "ksql.streams.commit.interval.ms=100\nsqlstream.command.topic.secret=shared-secret-of-this-service\n"

// TestServersShareOneCatalog runs two `sqlstream server` processes of
// one service id on one `sqlstream broker`: a CREATE on A is in B's SHOW
// STREAMS (B waits for A's commandSequenceNumber), B runs A's query,
// racing CREATEs of one name on A and B get one success and one clean
// error, and a TERMINATE on B stops the query on A.
func TestServersShareOneCatalog(t *testing.T) {
	t.Parallel()
	br := startBrokerProcess(t)
	cfg := writeConfig(t, scaleoutConfig)
	a := startServerOn(t, br.Kafka, "--config", cfg)
	b := startServerOn(t, br.Kafka, "--config", cfg)

	seq := commandSeq(t, a.mustKsql(`CREATE STREAM clicks (uid VARCHAR KEY, page VARCHAR)
	  WITH (KAFKA_TOPIC='clicks', VALUE_FORMAT='JSON', PARTITIONS=2);`))
	status, raw := b.post("/ksql", "application/vnd.ksql.v1+json", map[string]any{"ksql": "SHOW STREAMS;", "commandSequenceNumber": seq})
	if status != http.StatusOK || !slices.Contains(listed(t, raw, "streams", "name"), "CLICKS") {
		t.Fatalf("B's SHOW STREAMS after A's CREATE (seq %d): %d %s", seq, status, raw)
	}

	a.mustKsql(`CREATE STREAM pages AS SELECT uid, page FROM clicks;`)
	queries := func(n *node) []string {
		_, raw := n.post("/ksql", "application/vnd.ksql.v1+json", map[string]any{"ksql": "SHOW QUERIES;"})
		return listed(t, raw, "queries", "id")
	}
	ids := queries(a)
	if len(ids) != 1 {
		t.Fatalf("queries on A: %v", ids)
	}
	eventually(t, "B runs A's query", func() error {
		if got := queries(b); !slices.Equal(got, ids) {
			return fmt.Errorf("B runs %v, A %v", got, ids)
		}
		return nil
	})

	raceCreates(t, a, b)

	b.mustKsql("TERMINATE " + ids[0] + ";")
	eventually(t, "A stops the query terminated on B", func() error {
		if got := queries(a); len(got) != 0 {
			return fmt.Errorf("A still runs %v", got)
		}
		return nil
	})
}

// raceCreates posts the same CREATE to a and b at once, a few times.
func raceCreates(t *testing.T, a, b *node) {
	t.Helper()
	for round := 0; round < 3; round++ {
		sql := fmt.Sprintf("CREATE STREAM race%d (v INT) WITH (KAFKA_TOPIC='race%d', VALUE_FORMAT='JSON', PARTITIONS=1);", round, round)
		var wg sync.WaitGroup
		statuses := make([]int, 2)
		bodies := make([]string, 2)
		for i, n := range []*node{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var raw []byte
				statuses[i], raw = n.post("/ksql", "application/vnd.ksql.v1+json", map[string]any{"ksql": sql})
				bodies[i] = string(raw)
			}()
		}
		wg.Wait()
		ok := slices.Index(statuses, http.StatusOK)
		if ok < 0 || statuses[1-ok] != http.StatusBadRequest || !strings.Contains(bodies[1-ok], "already exists") {
			t.Fatalf("round %d: want one success and one \"already exists\": %v %v", round, statuses, bodies)
		}
	}
}

// commandSeq is the commandSequenceNumber of the last entity of a /ksql
// answer.
func commandSeq(t *testing.T, v any) int64 {
	t.Helper()
	ents, _ := v.([]any)
	if len(ents) == 0 {
		t.Fatalf("no entities in %v", v)
	}
	last, _ := ents[len(ents)-1].(map[string]any)
	seq, ok := last["commandSequenceNumber"].(float64)
	if !ok {
		t.Fatalf("no commandSequenceNumber in %v", last)
	}
	return int64(seq)
}

// listed returns field of every element of the list entity's key (e.g.
// "streams", "name") in a /ksql answer.
func listed(t *testing.T, raw []byte, key, field string) []string {
	t.Helper()
	var ents []map[string]any
	if err := json.Unmarshal(raw, &ents); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	var out []string
	for _, e := range ents {
		items, _ := e[key].([]any)
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				out = append(out, fmt.Sprint(m[field]))
			}
		}
	}
	return out
}

// TestServersSplitQueryTasks runs one query on two server processes of
// one service id: its group's tasks (the four partitions of its source)
// are split two and two by the task balancer, and the output of both
// servers together is what one server alone writes: each input record
// once, transformed.
func TestServersSplitQueryTasks(t *testing.T) {
	t.Parallel()
	br := startBrokerProcess(t)
	cfg := writeConfig(t, scaleoutConfig)
	a := startServerOn(t, br.Kafka, "--config", cfg)
	b := startServerOn(t, br.Kafka, "--config", cfg)
	a.mustKsql(`CREATE STREAM nums (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='nums', VALUE_FORMAT='JSON', PARTITIONS=4);`)
	a.mustKsql(`CREATE STREAM doubled WITH (KAFKA_TOPIC='doubled') AS SELECT k, v * 2 AS w FROM nums;`)
	// B applies A's commands as its follower reads them: a moment later.
	var ids []string
	eventually(t, "B runs the query created on A", func() error {
		_, raw := b.post("/ksql", "application/vnd.ksql.v1+json", map[string]any{"ksql": "SHOW QUERIES;"})
		if ids = listed(t, raw, "queries", "id"); len(ids) != 1 {
			return fmt.Errorf("queries on B: %s", raw)
		}
		return nil
	})
	group := "default_query_" + ids[0]
	adm := kadm.NewClient(kafkaClient(t, br.Kafka))
	eventually(t, "A and B own two tasks each of "+group, func() error {
		gs, err := adm.DescribeGroups(timeoutCtx(t), group)
		if err != nil {
			return err
		}
		g := gs[group]
		var owned []int
		for _, m := range g.Members {
			if a, ok := m.Assigned.AsConsumer(); ok && len(a.Topics) == 1 {
				owned = append(owned, len(a.Topics[0].Partitions))
			}
		}
		if g.State != "Stable" || g.Protocol != "sqlstream-tasks-v1" || fmt.Sprint(owned) != "[2 2]" {
			return fmt.Errorf("group %s: state %s, protocol %s, partitions per member %v", group, g.State, g.Protocol, owned)
		}
		return nil
	})
	var kvs, want []string
	for i := 0; i < 100; i++ {
		k := fmt.Sprintf("k%d", i)
		kvs = append(kvs, k, fmt.Sprintf(`{"V":%d}`, i))
		want = append(want, fmt.Sprintf(`%s={"W":%d}`, k, 2*i))
	}
	produce(t, br.Kafka, "nums", kvs...)
	slices.Sort(want)
	consume(t, br.Kafka, "doubled", len(want))
	time.Sleep(time.Second) // a duplicate would arrive now
	got := consumeAvailable(t, br.Kafka, "doubled")
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("two servers wrote %d records, want the %d one server writes:\n%v", len(got), len(want), got)
	}
}
