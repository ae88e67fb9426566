package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/internal/testutil"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Issue 20 parts 1, 3 and 4 through the binary: CREATE OR REPLACE … AS
// SELECT upgrades the running query of its sink in place.

const purchasesDDL = "CREATE STREAM purchases (id VARCHAR KEY, cost DOUBLE, quantity INT) WITH (KAFKA_TOPIC='purchases', VALUE_FORMAT='JSON', PARTITIONS=1);"

// TestUpgradeRunningQueryHowTo runs ksqlDB's how-to "update a running
// persistent query" as written, with data before and after: the query
// keeps its id and group, the records after the upgrade go through the
// new filter, none before it is processed again (the sink's records are
// counted); EXPLAIN CREATE OR REPLACE reports without changing anything;
// a refused upgrade leaves the query running its plan and never reaches
// the command topic; a restart runs the new plan from the committed
// offsets.
func TestUpgradeRunningQueryHowTo(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	n.mustKsql(purchasesDDL)
	n.mustKsql("CREATE STREAM valid_purchases AS SELECT * FROM purchases WHERE cost > 0.00 AND quantity > 0;")
	produce(t, n.Kafka, "purchases", "p1", `{"cost":1.5,"quantity":1}`, "p2", `{"cost":0,"quantity":1}`, "p3", `{"cost":2,"quantity":2}`)
	awaitSink(t, n, "VALID_PURCHASES", "p1", "p3")
	group := queryGroup(t, n, "CSAS_VALID_PURCHASES_1")
	adm := kadm.NewClient(kafkaClient(t, n.Kafka))
	if err := testutil.WaitCommitted(timeoutCtx(t), adm, group, "purchases"); err != nil {
		t.Fatal(err)
	}

	after := "CREATE OR REPLACE STREAM valid_purchases AS SELECT * FROM purchases WHERE quantity > 0;"
	if got := fmt.Sprint(n.mustKsql("EXPLAIN " + after)); !strings.Contains(got, "in place: the query of VALID_PURCHASES keeps its id") ||
		!strings.Contains(got, "WHERE changed: ((COST > 0.00) AND (QUANTITY > 0)) → (QUANTITY > 0)") {
		t.Fatalf("EXPLAIN CREATE OR REPLACE: %s", got)
	}
	if plan := explainPlan(t, n, "CSAS_VALID_PURCHASES_1"); !strings.Contains(plan, "COST > 0.00") {
		t.Fatalf("EXPLAIN changed the plan: %s", plan)
	}
	if got := fmt.Sprint(n.mustKsql(after)); !strings.Contains(got, "Created query with ID CSAS_VALID_PURCHASES_1") {
		t.Fatalf("upgrade answered %s", got)
	}
	// p2 (cost 0) would pass the new filter: were it read again, it
	// would come before p4.
	produce(t, n.Kafka, "purchases", "p4", `{"cost":0,"quantity":3}`, "p5", `{"cost":1,"quantity":0}`)
	awaitSink(t, n, "VALID_PURCHASES", "p1", "p3", "p4")
	if got := queryStates(t, n); got != "CSAS_VALID_PURCHASES_1=RUNNING" {
		t.Fatalf("queries after the upgrade: %s", got)
	}
	if plan := explainPlan(t, n, "CSAS_VALID_PURCHASES_1"); strings.Contains(plan, "COST > 0.00") || !strings.Contains(plan, "QUANTITY > 0") {
		t.Fatalf("EXPLAIN after the upgrade: %s", plan)
	}
	if got := queryGroup(t, n, "CSAS_VALID_PURCHASES_1"); got != group {
		t.Fatalf("consumer group %s after the upgrade, %s before", got, group)
	}

	refused := "CREATE OR REPLACE STREAM valid_purchases AS SELECT id, cost FROM purchases;"
	status, v := n.ksql(refused, nil)
	if msg := fmt.Sprint(v); status != http.StatusBadRequest || !strings.Contains(msg, "The following columns are changed, missing or reordered: [`QUANTITY` INTEGER]") {
		t.Fatalf("a refused upgrade: %d %s", status, msg)
	}
	n.mustKsql("CREATE STREAM marker (v INT) WITH (KAFKA_TOPIC='marker', VALUE_FORMAT='JSON', PARTITIONS=1);")
	if commandLogHas(t, n.Kafka, "SELECT id, cost FROM purchases", "CREATE STREAM marker") {
		t.Fatal("the refused upgrade is in the command topic")
	}
	produce(t, n.Kafka, "purchases", "p6", `{"cost":0,"quantity":4}`)
	awaitSink(t, n, "VALID_PURCHASES", "p1", "p3", "p4", "p6")
	if err := testutil.WaitCommitted(timeoutCtx(t), adm, group, "purchases"); err != nil {
		t.Fatal(err)
	}

	n.restart()
	produce(t, n.Kafka, "purchases", "p7", `{"cost":0,"quantity":5}`, "p8", `{"cost":9,"quantity":0}`)
	awaitSink(t, n, "VALID_PURCHASES", "p1", "p3", "p4", "p6", "p7")
	if got := queryStates(t, n); got != "CSAS_VALID_PURCHASES_1=RUNNING" {
		t.Fatalf("queries after the restart: %s", got)
	}
}

// awaitSink waits until topic holds exactly the records of keys, in
// order: it reads up to the record of the last key, then checks that no
// other record is there (its end offset is len(keys)).
func awaitSink(t *testing.T, n *node, topic string, keys ...string) {
	t.Helper()
	cl := kafkaClient(t, n.Kafka, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx := timeoutCtx(t)
	var got []string
	for len(got) == 0 || got[len(got)-1] != keys[len(keys)-1] {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%s: read %v, waiting for %v", topic, got, keys)
		}
		fs.EachRecord(func(r *kgo.Record) { got = append(got, string(r.Key)) })
	}
	ends, err := kadm.NewClient(cl).ListEndOffsets(timeoutCtx(t), topic)
	if err != nil {
		t.Fatal(err)
	}
	end, _ := ends.Lookup(topic, 0)
	if strings.Join(got, ",") != strings.Join(keys, ",") || end.Offset != int64(len(keys)) {
		t.Fatalf("%s holds %v (end offset %d), want exactly %v", topic, got, end.Offset, keys)
	}
}

// queryGroup is the consumer group EXPLAIN names for query id.
func queryGroup(t *testing.T, n *node, id string) string {
	t.Helper()
	return fmt.Sprint(queryDescription(t, n, id)["consumerGroupId"])
}

func explainPlan(t *testing.T, n *node, id string) string {
	t.Helper()
	return fmt.Sprint(queryDescription(t, n, id)["executionPlan"])
}

func queryDescription(t *testing.T, n *node, id string) map[string]any {
	t.Helper()
	ents, _ := n.mustKsql("EXPLAIN " + id + ";").([]any)
	if len(ents) != 1 {
		t.Fatalf("EXPLAIN %s: %v", id, ents)
	}
	d, _ := ents[0].(map[string]any)["queryDescription"].(map[string]any)
	return d
}

// queryStates lists SHOW QUERIES as id=STATE, comma-separated.
func queryStates(t *testing.T, n *node) string {
	t.Helper()
	ents, _ := n.mustKsql("SHOW QUERIES;").([]any)
	var out []string
	for _, e := range ents {
		qs, _ := e.(map[string]any)["queries"].([]any)
		for _, q := range qs {
			m, _ := q.(map[string]any)
			out = append(out, fmt.Sprintf("%v=%v", m["id"], m["state"]))
		}
	}
	return strings.Join(out, ",")
}

// commandLogHas reports whether a record of the command topic before
// the one holding marker (a statement recorded after the one looked for)
// holds text.
func commandLogHas(t *testing.T, kafka, text, marker string) bool {
	t.Helper()
	cl := kafkaClient(t, kafka, kgo.ConsumeTopics("_default__command_topic"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	ctx := timeoutCtx(t)
	found, done := false, false
	for !done {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("no command %q in the command topic", marker)
		}
		fs.EachRecord(func(r *kgo.Record) {
			done = done || bytes.Contains(r.Value, []byte(marker))
			found = found || (!done && bytes.Contains(r.Value, []byte(text)))
		})
	}
	return found
}

// TestUpgradeLosesAndRepeatsNothing upgrades a query while records
// flow, under exactly_once_v2 and at_least_once: the old runner ends
// cleanly (its transaction, or its commit: the at_least_once run commits
// only every ten minutes, so only the stop's commit keeps the records
// from being read again), the new one starts from its offsets, and the
// sink, read committed, holds every record exactly once, those after the
// upgrade with its new column.
func TestUpgradeLosesAndRepeatsNothing(t *testing.T) {
	t.Parallel()
	for _, g := range []struct{ guarantee, interval string }{{"exactly_once_v2", "100"}, {"at_least_once", "600000"}} {
		t.Run(g.guarantee, func(t *testing.T) {
			n := startNode(t, "--config", writeConfig(t, "ksql.streams.processing.guarantee="+g.guarantee+
				"\nksql.streams.commit.interval.ms="+g.interval+"\n"))
			n.mustKsql(purchasesDDL)
			n.mustKsql("CREATE STREAM copies AS SELECT * FROM purchases;")
			const total = 400
			done := make(chan struct{})
			go func() {
				defer close(done)
				cl := kafkaClient(t, n.Kafka)
				for i := range total {
					r := &kgo.Record{Topic: "purchases", Key: fmt.Appendf(nil, "k%03d", i), Value: []byte(`{"cost":1,"quantity":1}`)}
					if err := cl.ProduceSync(timeoutCtx(t), r).FirstErr(); err != nil {
						t.Errorf("produce: %v", err)
						return
					}
				}
			}()
			readSink(t, n, "COPIES", 50)
			n.mustKsql("CREATE OR REPLACE STREAM copies AS SELECT *, cost * quantity AS total FROM purchases;")
			<-done
			produce(t, n.Kafka, "purchases", "zz", `{"cost":1,"quantity":1}`)
			recs := readSink(t, n, "COPIES", -1)
			seen, upgraded := map[string]int{}, 0
			for _, r := range recs {
				seen[string(r.Key)]++
				if bytes.Contains(r.Value, []byte(`"TOTAL":1.0`)) {
					upgraded++
				}
			}
			for i := range total {
				if k := fmt.Sprintf("k%03d", i); seen[k] != 1 {
					t.Errorf("%s is in the sink %d times", k, seen[k])
				}
			}
			if len(recs) != total+1 || upgraded == 0 || upgraded == len(recs) {
				t.Fatalf("%d records in the sink (want %d), %d of them from the new plan", len(recs), total+1, upgraded)
			}
			if got := queryStates(t, n); got != "CSAS_COPIES_1=RUNNING" {
				t.Fatalf("queries: %s", got)
			}
		})
	}
}

// readSink reads topic read_committed from the start: at least min
// records, or (min < 0) up to the record of key "zz".
func readSink(t *testing.T, n *node, topic string, min int) []*kgo.Record {
	t.Helper()
	cl := kafkaClient(t, n.Kafka, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	ctx := timeoutCtx(t)
	var got []*kgo.Record
	for {
		if min >= 0 && len(got) >= min || min < 0 && len(got) > 0 && string(got[len(got)-1].Key) == "zz" {
			return got
		}
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%s: read %d records: %v", topic, len(got), ctx.Err())
		}
		fs.EachRecord(func(r *kgo.Record) { got = append(got, r) })
	}
}

// TestUpgradeReachesEveryServer upgrades, on one server of a service
// id, a query both run: the other applies the command from the command
// topic, stops its tasks and restarts them on the new plan (EXPLAIN on
// it shows the new plan, with the query's id), and the sink gets every
// record after it once, through the new plan, whichever server's task
// processed it.
func TestUpgradeReachesEveryServer(t *testing.T) {
	t.Parallel()
	br := startBrokerProcess(t)
	cfg := writeConfig(t, scaleoutConfig)
	a := startServerOn(t, br.Kafka, "--config", cfg)
	b := startServerOn(t, br.Kafka, "--config", cfg)
	a.mustKsql(strings.Replace(purchasesDDL, "PARTITIONS=1", "PARTITIONS=2", 1))
	a.mustKsql("CREATE STREAM valid AS SELECT * FROM purchases WHERE cost > 0;")
	eventually(t, "B runs the query", func() error {
		if got := queryStates(t, b); got != "CSAS_VALID_1=RUNNING" {
			return fmt.Errorf("B's queries: %s", got)
		}
		return nil
	})
	b.mustKsql("CREATE OR REPLACE STREAM valid AS SELECT *, quantity * 2 AS twice FROM purchases WHERE cost > 0;")
	for _, n := range []*node{a, b} {
		eventually(t, "each server runs the new plan", func() error {
			if plan := explainPlan(t, n, "CSAS_VALID_1"); !strings.Contains(plan, "TWICE") {
				return fmt.Errorf("plan: %s", plan)
			}
			if got := queryStates(t, n); got != "CSAS_VALID_1=RUNNING" {
				return fmt.Errorf("queries: %s", got)
			}
			return nil
		})
	}
	var kvs []string
	for i := range 20 {
		kvs = append(kvs, fmt.Sprintf("k%02d", i), `{"cost":1,"quantity":3}`)
	}
	produce(t, br.Kafka, "purchases", kvs...)
	got := consume(t, br.Kafka, "VALID", 20)
	for _, r := range got {
		if !strings.Contains(r, `"TWICE":6`) {
			t.Fatalf("a record not from the new plan: %v", got)
		}
	}
}

// TestUpgradeRegistryCompatibility upgrades a query whose sink is AVRO
// in the embedded registry: the new value schema (a column added) is a
// new version of the sink's subject; one the subject's compatibility
// check refuses (another writer registered TOTAL as a string) refuses the
// statement before it runs, and the query goes on with its plan.
func TestUpgradeRegistryCompatibility(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	url := registryURL(t, n)
	n.mustKsql(purchasesDDL)
	n.mustKsql("CREATE STREAM avro_p WITH (VALUE_FORMAT='AVRO') AS SELECT id, cost FROM purchases;")
	n.mustKsql("CREATE OR REPLACE STREAM avro_p WITH (VALUE_FORMAT='AVRO') AS SELECT id, cost, quantity FROM purchases;")
	const subject = "AVRO_P-value"
	if got := subjectVersions(t, url, subject); got != 2 {
		t.Fatalf("%s has %d versions after the upgrade, want 2", subject, got)
	}

	// Another writer registers TOTAL as a string (compatibility off for it).
	_, latest := plainHTTP(t, http.MethodGet, url+"/subjects/"+subject+"/versions/latest", "")
	var schema map[string]any
	if err := json.Unmarshal([]byte(fmt.Sprint(latest["schema"])), &schema); err != nil {
		t.Fatalf("latest schema of %s: %v (%v)", subject, err, latest)
	}
	schema["fields"] = append(schema["fields"].([]any), map[string]any{"name": "TOTAL", "type": []any{"null", "string"}, "default": nil})
	text, _ := json.Marshal(schema)
	body, _ := json.Marshal(map[string]string{"schema": string(text)})
	for _, req := range []struct{ method, path, body string }{
		{http.MethodPut, "/config/" + subject, `{"compatibility":"NONE"}`},
		{http.MethodPost, "/subjects/" + subject + "/versions", string(body)},
		{http.MethodPut, "/config/" + subject, `{"compatibility":"BACKWARD"}`},
	} {
		if status, out := plainHTTP(t, req.method, url+req.path, req.body); status != http.StatusOK {
			t.Fatalf("%s %s: %d %v", req.method, req.path, status, out)
		}
	}

	status, v := n.ksql("CREATE OR REPLACE STREAM avro_p WITH (VALUE_FORMAT='AVRO') AS SELECT id, cost, quantity, cost * quantity AS total FROM purchases;", nil)
	if msg := fmt.Sprint(v); status != http.StatusBadRequest || !strings.Contains(msg, "Could not register schema for topic: AVRO_P") {
		t.Fatalf("an upgrade the subject's compatibility refuses: %d %s", status, msg)
	}
	if plan := explainPlan(t, n, "CSAS_AVRO_P_1"); strings.Contains(plan, "TOTAL") {
		t.Fatalf("the refused upgrade changed the plan: %s", plan)
	}
	produce(t, n.Kafka, "purchases", "p1", `{"cost":2,"quantity":3}`)
	if got := consume(t, n.Kafka, "AVRO_P", 1); len(got) != 1 {
		t.Fatalf("the sink after a refused upgrade: %v", got)
	}
	if got := queryStates(t, n); got != "CSAS_AVRO_P_1=RUNNING" {
		t.Fatalf("queries: %s", got)
	}
}

// subjectVersions counts the versions of subject in the registry at url.
func subjectVersions(t *testing.T, url, subject string) int {
	t.Helper()
	resp, err := httpClient().Get(url + "/subjects/" + subject + "/versions")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var versions []int
	if err := json.NewDecoder(resp.Body).Decode(&versions); err != nil {
		t.Fatalf("versions of %s: %v", subject, err)
	}
	return len(versions)
}

// TestUpgradeAggregationKeepsCounts changes the WHERE of a GROUP BY
// count in place (the aggregation reads the same columns and counts the
// same, so ksqlDB allows it): pull queries answer the same counts right
// after the upgrade, and the counts go on from them, nothing counted
// twice.
func TestUpgradeAggregationKeepsCounts(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	n.mustKsql(purchasesDDL)
	n.mustKsql("CREATE TABLE counts AS SELECT id, COUNT(*) AS n FROM purchases WHERE cost > 0 GROUP BY id;")
	produce(t, n.Kafka, "purchases", "a", `{"cost":1,"quantity":1}`, "a", `{"cost":2,"quantity":1}`, "b", `{"cost":1,"quantity":1}`)
	counts := func() string {
		t.Helper()
		var got string
		eventually(t, "the counts", func() error {
			rows, err := pullRows(n, "SELECT id, n FROM counts WHERE id IN ('a', 'b');")
			got = fmt.Sprint(rows)
			return err
		})
		return got
	}
	eventually(t, "a counted twice, b once", func() error {
		if got := counts(); got != "[[a 2] [b 1]]" {
			return fmt.Errorf("counts %s", got)
		}
		return nil
	})
	n.mustKsql("CREATE OR REPLACE TABLE counts AS SELECT id, COUNT(*) AS n FROM purchases WHERE cost > 1 GROUP BY id;")
	if got := counts(); got != "[[a 2] [b 1]]" {
		t.Fatalf("counts right after the upgrade: %s", got)
	}
	produce(t, n.Kafka, "purchases", "a", `{"cost":1,"quantity":1}`, "b", `{"cost":3,"quantity":1}`, "a", `{"cost":5,"quantity":1}`)
	eventually(t, "the counts go on", func() error {
		if got := counts(); got != "[[a 3] [b 2]]" {
			return fmt.Errorf("counts %s", got)
		}
		return nil
	})
}

// TestUpgradeRestartRunsOnlyLatestPlan restarts a server whose command
// topic holds a query's CREATE and its CREATE OR REPLACE, with records
// written while it was down that only the new plan accepts: the replay
// starts the query once, on its latest plan, so every one of them is in
// the sink exactly once.
func TestUpgradeRestartRunsOnlyLatestPlan(t *testing.T) {
	t.Parallel()
	br := startBrokerProcess(t)
	n := startServerOn(t, br.Kafka)
	n.mustKsql(purchasesDDL)
	n.mustKsql("CREATE STREAM valid AS SELECT * FROM purchases WHERE cost > 0;")
	n.mustKsql("CREATE OR REPLACE STREAM valid AS SELECT * FROM purchases WHERE quantity > 0;")
	produce(t, br.Kafka, "purchases", "k00", `{"cost":0,"quantity":1}`)
	awaitSink(t, n, "VALID", "k00")
	group := queryGroup(t, n, "CSAS_VALID_1")
	if err := testutil.WaitCommitted(timeoutCtx(t), kadm.NewClient(kafkaClient(t, br.Kafka)), group, "purchases"); err != nil {
		t.Fatal(err)
	}
	n.stop()
	keys := []string{"k00"}
	var kvs []string
	for i := 1; i <= 50; i++ {
		keys = append(keys, fmt.Sprintf("k%02d", i))
		kvs = append(kvs, keys[i], `{"cost":0,"quantity":1}`)
	}
	produce(t, br.Kafka, "purchases", kvs...)
	n.start()
	awaitSink(t, n, "VALID", keys...)
	if got := queryStates(t, n); got != "CSAS_VALID_1=RUNNING" {
		t.Fatalf("queries after the restart: %s", got)
	}
}
