package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hamba "github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/sqlstream/sqlstream/internal/testutil"
)

// aggregateStoreQueries are the aggregations over the AVRO stream s of
// TestRegistryAggregateStoresRestoreFromChangelog, one per store kind:
// each query's name, its statement, and the store (beside the aggregate
// store) whose changelog's values are checked.
var aggregateStoreQueries = []struct{ name, sql, store string }{
	{"PLAIN", "CREATE TABLE plain WITH (FORMAT='JSON') AS SELECT k, COUNT(*) AS n, SUM(x) AS total FROM s GROUP BY k;", "Aggregate-Aggregate-Materialize"},
	{"TUMBLE", "CREATE TABLE tumble WITH (FORMAT='JSON') AS SELECT k, COUNT(*) AS n, SUM(x) AS total FROM s WINDOW TUMBLING (SIZE 1 HOUR) GROUP BY k;", "Aggregate-Aggregate-Materialize"},
	{"SESS", "CREATE TABLE sess WITH (FORMAT='JSON') AS SELECT k, COUNT(*) AS n, SUM(x) AS total FROM s WINDOW SESSION (1 HOUR) GROUP BY k;", "Aggregate-Aggregate-Materialize"},
	{"SLIDE", "CREATE TABLE slide WITH (FORMAT='JSON') AS SELECT k, COUNT(*) AS n, SUM(x) AS total FROM s WINDOW SLIDING (SIZE 1 HOUR) GROUP BY k;", "Aggregate-Sliding-Records"},
	{"FIN", "CREATE TABLE fin WITH (FORMAT='JSON') AS SELECT k, COUNT(*) AS n, SUM(x) AS total FROM s WINDOW TUMBLING (SIZE 1 MINUTE, GRACE PERIOD 0 SECONDS) GROUP BY k EMIT FINAL;", "Aggregate-Aggregate-Suppress"},
}

// TestRegistryAggregateStoresRestoreFromChangelog: over an AVRO stream,
// every store an aggregation keeps (plain, tumbling, session, sliding,
// EMIT FINAL) writes its changelog in the query's formats as ksqlDB
// writes `…-Aggregate-Materialize-changelog`: keys in Avro (Confluent's
// wire format) under `<changelog>-key`, windowed keys followed by their
// window, and the values in Avro under `<changelog>-value` (the store's
// timestamp the record's, not in the value), which a standard
// deserializer (hamba/avro by the schema id) reads. After the server loses its local state every store
// is restored from its changelog: the next record counts on from the
// restored state (N 3 where a lost state would give N 1).
func TestRegistryAggregateStoresRestoreFromChangelog(t *testing.T) {
	t.Parallel()
	fake, n := externalRegistry(t)
	// Records of this hour (a changelog of windows deletes older ones),
	// all in its first minute.
	base := time.Now().Truncate(time.Hour).UnixMilli()
	n.mustKsql(fmt.Sprintf(`CREATE STREAM s (k STRING KEY, x BIGINT) WITH (KAFKA_TOPIC='s', KEY_FORMAT='AVRO', VALUE_FORMAT='AVRO', PARTITIONS=1);
	  INSERT INTO s (ROWTIME, k, x) VALUES (%d, 'ann', 1);
	  INSERT INTO s (ROWTIME, k, x) VALUES (%d, 'ann', 2);`, base+1000, base+2000))
	for _, q := range aggregateStoreQueries {
		n.mustKsql("SET 'auto.offset.reset'='earliest'; " + q.sql)
	}
	adm := kadm.NewClient(kafkaClient(t, n.Kafka))
	for _, q := range aggregateStoreQueries {
		if q.name != "FIN" {
			waitResult(t, n, q.name, `"N":2,"TOTAL":3`)
		}
		storeLog := internalTopic(t, n, "CTAS_"+q.name+"_", "-"+q.store+"-changelog")
		waitAvroStoreRecord(t, n, fake, storeLog, q.name == "FIN", base)
		aggLog := internalTopic(t, n, "CTAS_"+q.name+"_", "-Aggregate-Aggregate-Materialize-changelog")
		if q.name != "SLIDE" { // a sliding window keeps raw rows, not accumulators
			waitAvroStoreRecord(t, n, fake, aggLog, false, base)
		}
		if err := testutil.WaitCommitted(timeoutCtx(t), adm, queryGroup(t, n, queryIDOf(storeLog, "CTAS_"+q.name+"_")), "s"); err != nil {
			t.Fatal(err)
		}
	}
	n.stop()
	if err := os.RemoveAll(filepath.Join(n.dataDir, "state")); err != nil {
		t.Fatal(err)
	}
	n.start()
	// bob's record closes FIN's first minute.
	n.mustKsql(fmt.Sprintf(`INSERT INTO s (ROWTIME, k, x) VALUES (%d, 'ann', 4);
	  INSERT INTO s (ROWTIME, k, x) VALUES (%d, 'bob', 1);`, base+3000, base+200000))
	for _, q := range aggregateStoreQueries {
		waitResult(t, n, q.name, `"N":3,"TOTAL":7`)
	}
	// A key lookup encodes its key as the store's keys are (Avro under
	// the changelog's subject) and finds the restored group.
	eventually(t, "a key lookup in the restored store", func() error {
		return same(counts(t, n, "SELECT * FROM plain WHERE k = 'ann';"), map[string]string{"ann": "3 7"})
	})
}

// queryIDOf is the query id in an internal topic's name:
// <service id>query_<prefix…>-<store or topic>.
func queryIDOf(topic, prefix string) string {
	id := topic[strings.Index(topic, prefix):]
	return id[:strings.Index(id, "-")]
}

// waitResult waits for a record of the sink topic name whose value holds
// want.
func waitResult(t *testing.T, n *node, topic, want string) {
	t.Helper()
	kc := kafkaClient(t, n.Kafka, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx := timeoutCtx(t)
	var seen []string
	for {
		fs := kc.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%s: no value with %s among %q", topic, want, seen)
		}
		found := false
		fs.EachRecord(func(r *kgo.Record) {
			seen = append(seen, string(r.Value))
			found = found || strings.Contains(string(r.Value), want)
		})
		if found {
			return
		}
	}
}

// waitAvroStoreRecord waits for a record of a store's changelog and
// checks it is in Avro: its key (the inner key of a windowed store's)
// under topic-key, its value under topic-value, as hamba/avro reads them
// by their schema ids; its timestamp is the row's (one of the records'
// of the first minute from base), not the producer's clock. The EMIT
// FINAL buffer's stream-time record (a key of its own) is passed over.
func waitAvroStoreRecord(t *testing.T, n *node, fake *srfake.Registry, topic string, final bool, base int64) {
	t.Helper()
	kc := kafkaClient(t, n.Kafka, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx := timeoutCtx(t)
	for {
		fs := kc.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%s: no record", topic)
		}
		var rec *kgo.Record
		fs.EachRecord(func(r *kgo.Record) {
			if rec == nil && r.Value != nil && !(final && strings.HasSuffix(string(r.Key), "stream-time")) {
				rec = r
			}
		})
		if rec == nil {
			continue
		}
		key := rec.Key
		if final {
			key = key[8 : len(key)-8] // window end ‖ key ‖ window start
		}
		if got := avroField(t, fake, topic+"-key", key); !strings.Contains(got, "ann") && !strings.Contains(got, "bob") {
			t.Errorf("%s key %q reads as %s", topic, rec.Key, got)
		}
		if len(rec.Value) < 5 {
			t.Fatalf("%s value %q", topic, rec.Value)
		}
		avroField(t, fake, topic+"-value", rec.Value)
		if ts := rec.Timestamp.UnixMilli(); ts != base+1000 && ts != base+2000 {
			t.Errorf("%s record timestamp %d, want a row's time (%d or %d)", topic, ts, base+1000, base+2000)
		}
		return
	}
}

// avroField reads the Avro datum at the start of b (Confluent's wire
// format; a windowed key's window may follow it) with hamba/avro by the
// schema its id names, which must be registered under subject.
func avroField(t *testing.T, fake *srfake.Registry, subject string, b []byte) string {
	t.Helper()
	if !fake.SubjectExists(subject) {
		t.Errorf("no subject %s", subject)
	}
	id, s := schemaOf(t, fake, b)
	cl, err := sr.NewClient(sr.URLs(fake.URL()))
	if err != nil {
		t.Fatal(err)
	}
	subjects, err := cl.SubjectsByID(timeoutCtx(t), id)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fmt.Sprint(subjects), subject) {
		t.Errorf("schema %d of %q is registered under %v, not %s", id, b, subjects, subject)
	}
	var v any
	r := hamba.NewReader(nil, 0)
	r.Reset(b[5:])
	r.ReadVal(hamba.MustParse(s.Schema), &v)
	if r.Error != nil {
		t.Fatalf("hamba/avro cannot read %q with %s: %v", b, s.Schema, r.Error)
	}
	return fmt.Sprint(v)
}

// TestRegistryJoinStoresRestoreFromChangelog: an as-of join (with a grace
// period) and a foreign-key join over AVRO values keep their stores in
// the query's formats (the versioned table store's and the grace
// buffer's rows in Avro under their changelogs' subjects, the FK join's
// subscriptions keyed len(fk) ‖ fk ‖ left key in the tables' KAFKA key
// bytes), and after the server loses its local state each store is
// restored from its changelog: a late order finds the version it needs,
// the buffered order comes out joined, and a customer's update reaches
// the order subscribed to it before the restart.
func TestRegistryJoinStoresRestoreFromChangelog(t *testing.T) {
	t.Parallel()
	fake, n := externalRegistry(t)
	base := time.Now().Truncate(time.Hour).UnixMilli()
	n.mustKsql(fmt.Sprintf(`CREATE STREAM orders (currency STRING KEY, id STRING) WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='AVRO', PARTITIONS=1);
	  CREATE TABLE rates (currency STRING PRIMARY KEY, rate DOUBLE) WITH (KAFKA_TOPIC='rates', VALUE_FORMAT='AVRO', PARTITIONS=1, HISTORY_RETENTION='1 HOUR');
	  CREATE TABLE purchases (id STRING PRIMARY KEY, cid STRING) WITH (KAFKA_TOPIC='purchases', VALUE_FORMAT='AVRO', PARTITIONS=1);
	  CREATE TABLE customers (id STRING PRIMARY KEY, name STRING) WITH (KAFKA_TOPIC='customers', VALUE_FORMAT='AVRO', PARTITIONS=1);
	  INSERT INTO rates (ROWTIME, currency, rate) VALUES (%d, 'USD', 1.5);
	  INSERT INTO customers (id, name) VALUES ('c1', 'ada');`, base+1000))
	n.mustKsql(`SET 'auto.offset.reset'='earliest';
	  CREATE STREAM asof WITH (FORMAT='JSON') AS SELECT o.currency, o.id, r.rate FROM orders o
	    JOIN rates FOR SYSTEM_TIME AS OF o.ROWTIME r GRACE PERIOD 10 SECONDS ON o.currency = r.currency;`)
	n.mustKsql(`SET 'auto.offset.reset'='earliest';
	  CREATE TABLE bought WITH (FORMAT='JSON') AS SELECT p.id, c.name FROM purchases p JOIN customers c ON p.cid = c.id;`)
	// o1 is joined once o2 moves stream time past its grace; o2 stays
	// buffered across the restart.
	n.mustKsql(fmt.Sprintf(`INSERT INTO orders (ROWTIME, currency, id) VALUES (%d, 'USD', 'o1');
	  INSERT INTO orders (ROWTIME, currency, id) VALUES (%d, 'USD', 'o2');
	  INSERT INTO purchases (id, cid) VALUES ('p1', 'c1');`, base+2000, base+20_000))
	waitResult(t, n, "ASOF", `{"ID":"o1","RATE":1.5}`)
	waitResult(t, n, "BOUGHT", `{"NAME":"ada"}`)

	versions := internalTopic(t, n, "CSAS_ASOF_", "-KafkaTopic_Right-Versioned-changelog")
	buffer := internalTopic(t, n, "CSAS_ASOF_", "-Join-Buffer-changelog")
	for _, r := range consumeRecords(t, n, versions, 2) {
		if len(r.Key) > 8 { // not the table time
			if string(r.Key[:len(r.Key)-8]) != "USD" || len(r.Value) < 6 {
				t.Fatalf("%s holds %q → %q, want the KAFKA key then the version's time", versions, r.Key, r.Value)
			}
			avroField(t, fake, versions+"-value", r.Value[1:])
		}
	}
	for _, r := range consumeRecords(t, n, buffer, 2) {
		if len(r.Key) == 20 && r.Value != nil {
			avroField(t, fake, buffer+"-value", r.Value[5:])
		}
	}
	subs := internalTopic(t, n, "CTAS_BOUGHT_", "-KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-0000000016-changelog")
	if r := consumeRecords(t, n, subs, 1)[0]; string(r.Key) != "\x00\x00\x00\x02c1p1" {
		t.Errorf("%s key %q, want len(fk) ‖ fk ‖ left key in the tables' KAFKA key bytes", subs, r.Key)
	}
	adm := kadm.NewClient(kafkaClient(t, n.Kafka))
	for query, topics := range map[string][]string{queryIDOf(versions, "CSAS_ASOF_"): {"orders", "rates"},
		queryIDOf(subs, "CTAS_BOUGHT_"): {"purchases", "customers"}} {
		if err := testutil.WaitCommitted(timeoutCtx(t), adm, queryGroup(t, n, query), topics...); err != nil {
			t.Fatal(err)
		}
	}
	n.stop()
	if err := os.RemoveAll(filepath.Join(n.dataDir, "state")); err != nil {
		t.Fatal(err)
	}
	n.start()
	// o3 is older than stream time − grace: joined at once, with the
	// version valid at its time; o4 releases the buffered o2.
	n.mustKsql(fmt.Sprintf(`INSERT INTO orders (ROWTIME, currency, id) VALUES (%d, 'USD', 'o3');
	  INSERT INTO orders (ROWTIME, currency, id) VALUES (%d, 'USD', 'o4');
	  INSERT INTO customers (id, name) VALUES ('c1', 'bob');`, base+3000, base+40_000))
	waitResult(t, n, "ASOF", `{"ID":"o3","RATE":1.5}`)
	waitResult(t, n, "ASOF", `{"ID":"o2","RATE":1.5}`)
	waitResult(t, n, "BOUGHT", `{"NAME":"bob"}`)
}

// TestRegistryTableAggregationRestoresFromChangelog: a GROUP BY over an
// AVRO table keeps each input row (so that an update retracts the old
// one) in the table's formats: its store's changelog
// (`…-Aggregate-Source-Materialize-changelog`) has the table key in Avro
// under `<changelog>-key` and the row in Avro under `<changelog>-value`,
// as hamba/avro reads them by their schema ids. After the server loses
// its local state the store is restored from its changelog: ann's move
// from gold to silver retracts her old score from gold (N 1, TOTAL 5;
// without the restored row gold would not change).
func TestRegistryTableAggregationRestoresFromChangelog(t *testing.T) {
	t.Parallel()
	fake, n := externalRegistry(t)
	n.mustKsql(`CREATE TABLE users (id STRING PRIMARY KEY, tier STRING, score BIGINT) WITH (KAFKA_TOPIC='users', KEY_FORMAT='AVRO', VALUE_FORMAT='AVRO', PARTITIONS=1);
	  INSERT INTO users (id, tier, score) VALUES ('ann', 'gold', 1);
	  INSERT INTO users (id, tier, score) VALUES ('bob', 'gold', 5);
	  SET 'auto.offset.reset'='earliest';
	  CREATE TABLE per_tier WITH (FORMAT='JSON') AS SELECT tier, COUNT(*) AS n, SUM(score) AS total FROM users GROUP BY tier;`)
	waitResult(t, n, "PER_TIER", `"N":2,"TOTAL":6`)
	storeLog := internalTopic(t, n, "CTAS_PER_TIER_", "-Aggregate-Source-Materialize-changelog")
	rows := readAvroInputRows(t, n, fake, storeLog, 2)
	if rows["ann"] == "" || !strings.Contains(rows["bob"], "gold") {
		t.Fatalf("%s holds %v, want ann's and bob's gold rows", storeLog, rows)
	}
	adm := kadm.NewClient(kafkaClient(t, n.Kafka))
	if err := testutil.WaitCommitted(timeoutCtx(t), adm, queryGroup(t, n, queryIDOf(storeLog, "CTAS_PER_TIER_")), "users"); err != nil {
		t.Fatal(err)
	}
	n.stop()
	if err := os.RemoveAll(filepath.Join(n.dataDir, "state")); err != nil {
		t.Fatal(err)
	}
	n.start()
	n.mustKsql(`INSERT INTO users (id, tier, score) VALUES ('ann', 'silver', 4);`)
	waitResult(t, n, "PER_TIER", `"N":1,"TOTAL":5`)
	eventually(t, "gold and silver after ann's move", func() error {
		return same(counts(t, n, "SELECT * FROM per_tier;"), map[string]string{"gold": "1 5", "silver": "1 4"})
	})
}

// readAvroInputRows reads the first want distinct keys of an input-row
// store's changelog, each key and row in Avro under the changelog's
// subjects, and returns each key's row as hamba/avro reads them.
func readAvroInputRows(t *testing.T, n *node, fake *srfake.Registry, topic string, want int) map[string]string {
	t.Helper()
	kc := kafkaClient(t, n.Kafka, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx := timeoutCtx(t)
	rows := map[string]string{}
	for len(rows) < want {
		fs := kc.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%s: %d rows of %d: %v", topic, len(rows), want, rows)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if r.Value != nil {
				rows[avroField(t, fake, topic+"-key", r.Key)] = avroField(t, fake, topic+"-value", r.Value)
			}
		})
	}
	return rows
}

// TestRegistryForeignKeyJoinTopicsUnderOwnSubjects: a foreign-key join
// of AVRO-keyed tables writes its registration and response topics'
// keys under each topic's own `<topic>-key` subject (as ksqlDB's
// KsqlTopic of each internal topic), which hamba/avro reads by the
// schema id: the foreign key c1 in the registration topic, the left key
// p1 in the response topic. The join still joins, across a restart, and
// a customer's update reaches the purchase subscribed to it.
func TestRegistryForeignKeyJoinTopicsUnderOwnSubjects(t *testing.T) {
	t.Parallel()
	fake, n := externalRegistry(t)
	n.mustKsql(`CREATE TABLE purchases (id STRING PRIMARY KEY, cid STRING) WITH (KAFKA_TOPIC='purchases', KEY_FORMAT='AVRO', VALUE_FORMAT='AVRO', PARTITIONS=2);
	  CREATE TABLE customers (id STRING PRIMARY KEY, name STRING) WITH (KAFKA_TOPIC='customers', KEY_FORMAT='AVRO', VALUE_FORMAT='AVRO', PARTITIONS=2);
	  INSERT INTO customers (id, name) VALUES ('c1', 'ada');
	  SET 'auto.offset.reset'='earliest';
	  CREATE TABLE bought WITH (FORMAT='JSON') AS SELECT p.id, c.name FROM purchases p JOIN customers c ON p.cid = c.id;
	  INSERT INTO purchases (id, cid) VALUES ('p1', 'c1');`)
	waitResult(t, n, "BOUGHT", `{"NAME":"ada"}`)
	for suffix, want := range map[string]string{"-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000012-topic": "c1",
		"-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000020-topic": "p1"} {
		topic := internalTopic(t, n, "CTAS_BOUGHT_", suffix)
		r := consumeRecords(t, n, topic, 1)[0]
		if got := avroField(t, fake, topic+"-key", r.Key); got != want {
			t.Errorf("%s key %q reads as %s, want %s", topic, r.Key, got, want)
		}
	}
	n.stop()
	n.start()
	n.mustKsql(`INSERT INTO customers (id, name) VALUES ('c1', 'bob');`)
	waitResult(t, n, "BOUGHT", `{"NAME":"bob"}`)
}
