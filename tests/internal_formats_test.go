package tests

import (
	be "encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	hamba "github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
)

// internalTopic returns the topic whose name holds query and ends with
// suffix.
func internalTopic(t *testing.T, n *node, query, suffix string) string {
	t.Helper()
	var found string
	eventually(t, "the topic *"+suffix, func() error {
		topics, err := kadm.NewClient(kafkaClient(t, n.Kafka)).ListTopics(timeoutCtx(t))
		if err != nil {
			return err
		}
		for _, name := range topics.Names() {
			if strings.Contains(name, query) && strings.HasSuffix(name, suffix) {
				found = name
				return nil
			}
		}
		return fmt.Errorf("no topic ends with %s among %v", suffix, topics.Names())
	})
	return found
}

// consumeRecords reads count records of topic from the start.
func consumeRecords(t *testing.T, n *node, topic string, count int) []*kgo.Record {
	t.Helper()
	kc := kafkaClient(t, n.Kafka, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx := timeoutCtx(t)
	var got []*kgo.Record
	for len(got) < count {
		fs := kc.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("consumed %d of %d records from %s", len(got), count, topic)
		}
		fs.EachRecord(func(r *kgo.Record) { got = append(got, r) })
	}
	return got
}

// TestInternalTopicsInQueryFormats: a GROUP BY and a join over AVRO
// sources write their repartition topics in Avro in Confluent's wire
// format, under the repartition topics' own subjects (as ksqlDB), which
// a standard deserializer (hamba/avro by the record's schema id) reads;
// the table store's changelog key is in the table's key format and its
// values in the table's value format (the timestamp is the record's), as
// the aggregate store's accumulators are in the source's; the
// query reads its repartition topic back across a restart; DROP …
// DELETE TOPIC deletes the internal subjects with the topics.
func TestInternalTopicsInQueryFormats(t *testing.T) {
	t.Parallel()
	fake, n := externalRegistry(t)
	createTopic(t, n.Kafka, "bids", 1)
	id := registerSchema(t, fake, "bids-value", sr.TypeAvro, bidAvro)
	var serde sr.Serde
	schema := hamba.MustParse(bidAvro)
	serde.Register(id, bid{}, sr.EncodeFn(func(v any) ([]byte, error) { return hamba.Marshal(schema, v) }))

	n.mustKsql(`CREATE STREAM bids WITH (KAFKA_TOPIC='bids', KEY_FORMAT='KAFKA', VALUE_FORMAT='AVRO');
	  CREATE TABLE bidders (name STRING PRIMARY KEY, city STRING) WITH (KAFKA_TOPIC='bidders', KEY_FORMAT='KAFKA', VALUE_FORMAT='AVRO', PARTITIONS=1);
	  INSERT INTO bidders (name, city) VALUES ('ann', 'Oslo');`)
	produceValues(t, n, "bids", serde.MustEncode(bid{1, 5, "ann"}), serde.MustEncode(bid{1, 50, "bob"}), serde.MustEncode(bid{2, 30, "ann"}))
	n.mustKsql(`SET 'auto.offset.reset'='earliest';
	  CREATE TABLE top AS SELECT auction, MAX(price) AS best FROM bids GROUP BY auction;
	  CREATE STREAM cities AS SELECT b.bidder AS bidder, u.city AS city, b.price AS price FROM bids b JOIN bidders u ON b.bidder = u.name;`)

	groupBy := internalTopic(t, n, "CTAS_TOP_", "-Aggregate-GroupBy-repartition")
	var args []int64
	for _, r := range consumeRecords(t, n, groupBy, 3) {
		if len(r.Key) != 8 {
			t.Fatalf("%s key %q: want the KAFKA BIGINT of the bids' key format", groupBy, r.Key)
		}
		_, s := schemaOf(t, fake, r.Value)
		arg, err := avroArg(s.Schema, r.Value[5:])
		if err != nil {
			t.Fatalf("hamba/avro cannot read %s's value %q with %s: %v", groupBy, r.Value, s.Schema, err)
		}
		args = append(args, arg)
	}
	if fmt.Sprint(args) != "[5 50 30]" {
		t.Errorf("%s values %v, want the prices [5 50 30]", groupBy, args)
	}
	join := internalTopic(t, n, "CSAS_CITIES_", "-Join-repartition")
	for _, r := range consumeRecords(t, n, join, 3) {
		if _, s := schemaOf(t, fake, r.Value); s.Type != sr.TypeAvro || !strings.Contains(s.Schema, `"BIDDER"`) {
			t.Fatalf("%s value %q has the schema %s, want the bids' columns in Avro", join, r.Value, s.Schema)
		}
	}
	for _, subject := range []string{groupBy + "-value", join + "-value"} {
		if !fake.SubjectExists(subject) {
			t.Errorf("no subject %s", subject)
		}
	}
	for _, subject := range []string{groupBy + "-key", join + "-key"} {
		if fake.SubjectExists(subject) {
			t.Errorf("subject %s registered for a KAFKA key", subject)
		}
	}
	changelog := internalTopic(t, n, "CSAS_CITIES_", "-KafkaTopic_Right-Reduce-changelog")
	if r := consumeRecords(t, n, changelog, 1)[0]; string(r.Key) != "ann" {
		t.Errorf("%s key %q, want the KAFKA string of the table's key format", changelog, r.Key)
	} else if _, s := schemaOf(t, fake, r.Value); !strings.Contains(s.Schema, `"CITY"`) {
		t.Errorf("%s value %q has the schema %s, want the table's columns in Avro", changelog, r.Value, s.Schema)
	}
	for _, v := range consumeValues(t, n, "CITIES", 2) {
		if _, s := schemaOf(t, fake, v); !strings.Contains(s.Schema, `"CITY"`) {
			t.Errorf("CITIES value %q has the schema %s", v, s.Schema)
		}
	}
	// The aggregate store's changelog: the accumulator in Avro under the
	// changelog's own subject.
	storeLog := internalTopic(t, n, "CTAS_TOP_", "-Aggregate-Aggregate-Materialize-changelog")
	for _, r := range consumeRecords(t, n, storeLog, 2) {
		if _, s := schemaOf(t, fake, r.Value); s.Type != sr.TypeAvro || !strings.Contains(s.Schema, `"KSQL_AGG_MAX_`) {
			t.Fatalf("%s value %q has the schema %s, want MAX's accumulator in Avro", storeLog, r.Value, s.Schema)
		}
	}
	if !fake.SubjectExists(storeLog + "-value") {
		t.Errorf("no subject %s-value", storeLog)
	}
	eventually(t, "pull from top", func() error {
		return same(counts(t, n, "SELECT * FROM top WHERE auction = 1;"), map[string]string{"1": "50"})
	})
	n.restart()
	produceValues(t, n, "bids", serde.MustEncode(bid{2, 90, "dan"}))
	eventually(t, "pull from top after a restart", func() error {
		return same(counts(t, n, "SELECT * FROM top WHERE auction = 2;"), map[string]string{"2": "90"})
	})
	query := groupBy[strings.Index(groupBy, "CTAS_TOP_"):strings.Index(groupBy, "-Aggregate")]
	n.mustKsql("TERMINATE " + query + "; DROP TABLE top DELETE TOPIC;")
	eventually(t, "the internal subjects deleted with their topics", func() error {
		for _, topic := range []string{groupBy, storeLog} {
			if fake.SubjectExists(topic + "-value") {
				return fmt.Errorf("%s-value still exists", topic)
			}
		}
		return nil
	})
}

// avroArg reads the one aggregate argument (a field named *_ARG_0, a
// nullable long) of a GROUP BY repartition value.
func avroArg(schema string, payload []byte) (int64, error) {
	var v map[string]any
	if err := hamba.Unmarshal(hamba.MustParse(schema), payload, &v); err != nil {
		return 0, err
	}
	for name, x := range v {
		if !strings.HasSuffix(name, "_ARG_0") {
			continue
		}
		if m, ok := x.(map[string]any); ok {
			x = m["long"]
		}
		if n, ok := x.(int64); ok {
			return n, nil
		}
		return 0, fmt.Errorf("field %s is %T %v", name, x, x)
	}
	return 0, fmt.Errorf("no *_ARG_0 field in %v", v)
}

// TestLegacyCommandKeepsJSONInternalTopics: a GROUP BY recorded in the
// command topic by a release whose internal topics were always JSON
// keeps writing and reading JSON there after the upgrade (and across a
// restart), while a query recorded now writes its repartition topic in
// its source's formats (KAFKA key, DELIMITED value). A GROUP BY recorded
// by the release whose repartition topics followed the sources but whose
// aggregate stores did not (internalFormats without storeFormats) keeps
// its store's JSON values (STATE_0); one recorded now writes them in the
// source's value format (DELIMITED). One recorded by the release whose
// store values followed the query but whose keys did not (storeFormats
// "query") keeps its store's JSON keys; one recorded now writes them in
// the source's key format (KAFKA). One recorded with storeFormats
// "query/2" keeps the 8-byte timestamp in front of its store's changelog
// values, and after the server loses its state restores from them and
// goes on writing them so; one recorded now writes the count alone (the
// timestamp the record's) and restores from that.
func TestLegacyCommandKeepsJSONInternalTopics(t *testing.T) {
	t.Parallel()
	const topic, secret = "_old__command_topic", "the secret of the old service"
	br := startBrokerProcess(t)
	createTopic(t, br.Kafka, topic, 1)
	createTopic(t, br.Kafka, "s", 1)
	cl := kafkaClient(t, br.Kafka)
	for i, cmd := range []map[string]any{
		{"seq": 0, "statement": "CREATE STREAM s (k STRING KEY, v STRING) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='DELIMITED', PARTITIONS=1);"},
		{"seq": 1, "statement": "CREATE TABLE c AS SELECT v, COUNT(k) AS n FROM s GROUP BY v;", "queryId": "CTAS_C_1",
			"streamsProperties": map[string]string{"auto.offset.reset": "earliest"}},
		{"seq": 2, "statement": "CREATE TABLE e AS SELECT v, COUNT(k) AS n FROM s GROUP BY v;", "queryId": "CTAS_E_2",
			"streamsProperties": map[string]string{"auto.offset.reset": "earliest"}, "internalFormats": "sources"},
		{"seq": 3, "statement": "CREATE TABLE q AS SELECT v, COUNT(k) AS n FROM s GROUP BY v;", "queryId": "CTAS_Q_3",
			"streamsProperties": map[string]string{"auto.offset.reset": "earliest"}, "internalFormats": "sources/2", "storeFormats": "query"},
		{"seq": 4, "statement": "CREATE TABLE r AS SELECT v, COUNT(k) AS n FROM s GROUP BY v;", "queryId": "CTAS_R_4",
			"streamsProperties": map[string]string{"auto.offset.reset": "earliest"}, "internalFormats": "sources/3", "storeFormats": "query/2"},
	} {
		b, err := json.Marshal(cmd)
		if err != nil {
			t.Fatal(err)
		}
		if err := cl.ProduceSync(timeoutCtx(t), formatOneRecord(topic, secret, fmt.Sprint(i), string(b))).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	produce := func(k, v string) {
		t.Helper()
		if err := cl.ProduceSync(timeoutCtx(t), &kgo.Record{Topic: "s", Key: []byte(k), Value: []byte(v), Timestamp: time.UnixMilli(int64(len(k) * 1000))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	produce("k1", "a")
	produce("k2", "a")
	cfg := writeConfig(t, "sqlstream.command.topic.secret="+secret+"\n")
	n := startServerOn(t, br.Kafka, "--service-id", "old_", "--config", cfg)
	count := func(want string) func() error {
		return func() error {
			return same(counts(t, n, "SELECT * FROM c WHERE v = 'a';"), map[string]string{"a": want})
		}
	}
	eventually(t, "the old query's count", count("2"))
	legacy := "old_query_CTAS_C_1-Aggregate-GroupBy-repartition"
	for _, r := range consumeRecords(t, n, legacy, 2) {
		if string(r.Key) != `"a"` || !strings.HasPrefix(string(r.Value), `{"ARG_0_0":"k`) {
			t.Fatalf("%s holds %q → %q, want JSON as the old release wrote", legacy, r.Key, r.Value)
		}
	}
	n.restart()
	produce("k3", "a")
	eventually(t, "the old query's count after a restart", count("3"))

	n.mustKsql(`SET 'auto.offset.reset'='earliest';
	  CREATE TABLE d AS SELECT v, COUNT(k) AS n FROM s GROUP BY v;`)
	fresh := internalTopic(t, n, "CTAS_D_", "-Aggregate-GroupBy-repartition")
	for _, r := range consumeRecords(t, n, fresh, 3) {
		if string(r.Key) != "a" || !strings.HasPrefix(string(r.Value), "k") {
			t.Fatalf("%s holds %q → %q, want a KAFKA key and a DELIMITED value", fresh, r.Key, r.Value)
		}
	}
	// Legacy store values: 8-byte timestamp, then the accumulators.
	storeValues := func(topic string, count int) []string {
		var out []string
		for _, r := range consumeRecords(t, n, topic, count) {
			if len(r.Value) < 8 {
				t.Fatalf("%s value %q has no timestamp", topic, r.Value)
			}
			out = append(out, string(r.Value[8:]))
		}
		return out
	}
	older := "old_query_CTAS_E_2-Aggregate-Aggregate-Materialize-changelog"
	if got := storeValues(older, 1); got[0] != `{"STATE_0":1}` && got[0] != `{"STATE_0":2}` && got[0] != `{"STATE_0":3}` {
		t.Errorf("%s holds %q, want JSON accumulators by position as that release wrote", older, got)
	}
	eventually(t, "the new query's count", func() error {
		return same(counts(t, n, "SELECT * FROM d WHERE v = 'a';"), map[string]string{"a": "3"})
	})
	freshLog := internalTopic(t, n, "CTAS_D_", "-Aggregate-Aggregate-Materialize-changelog")
	if r := consumeRecords(t, n, freshLog, 1)[0]; !slices.Contains([]string{"1", "2", "3"}, string(r.Value)) || r.Timestamp.UnixMilli() != 2000 {
		t.Errorf("the new query's store holds %q at %v, want the count alone in the source's DELIMITED format, at the record's time", r.Value, r.Timestamp.UnixMilli())
	}
	keyed := "old_query_CTAS_Q_3-Aggregate-Aggregate-Materialize-changelog"
	if r := consumeRecords(t, n, keyed, 1)[0]; string(r.Key) != `"a"` || len(r.Value) < 9 || !strings.ContainsAny(string(r.Value[8:]), "123") || r.Value[8] == '{' {
		t.Errorf("%s holds %q → %q, want a JSON key and a DELIMITED count as that release wrote", keyed, r.Key, r.Value)
	}
	if r := consumeRecords(t, n, internalTopic(t, n, "CTAS_D_", "-Aggregate-Aggregate-Materialize-changelog"), 1)[0]; string(r.Key) != "a" {
		t.Errorf("the new query's store key %q, want the KAFKA string of the source's key format", r.Key)
	}
	// An upgrade of the query recorded with storeFormats "query" records
	// that level with it: after a replay its store still takes JSON keys.
	n.mustKsql("CREATE OR REPLACE TABLE q AS SELECT v, COUNT(k) AS n FROM s GROUP BY v HAVING COUNT(k) > 0;")
	n.restart()
	produce("k4", "b")
	eventually(t, "the upgraded query's count after a replay", func() error {
		return same(counts(t, n, "SELECT * FROM q WHERE v = 'b';"), map[string]string{"b": "1"})
	})
	kc := kafkaClient(t, n.Kafka, kgo.ConsumeTopics(keyed), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx := timeoutCtx(t)
	var seen []string
	ofB := func(k string) bool { return strings.Contains(k, "b") }
	for !slices.ContainsFunc(seen, ofB) {
		fs := kc.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%s: no record for b among the keys %q", keyed, seen)
		}
		fs.EachRecord(func(r *kgo.Record) { seen = append(seen, string(r.Key)) })
	}
	if k := seen[slices.IndexFunc(seen, ofB)]; k != `"b"` {
		t.Errorf("%s key %q after the upgrade and a replay, want JSON keys as the query's first command recorded", keyed, k)
	}

	// storeFormats "query/2": the timestamp in front of the changelog
	// value, before and after a restore from it.
	prefixed := "old_query_CTAS_R_4-Aggregate-Aggregate-Materialize-changelog"
	if got := storeValues(prefixed, 1); !slices.Contains([]string{"1", "2", "3"}, got[0]) {
		t.Errorf("%s holds %q after the timestamp, want the DELIMITED count as that release wrote", prefixed, got)
	}
	n.stop()
	if err := os.RemoveAll(filepath.Join(n.dataDir, "state")); err != nil {
		t.Fatal(err)
	}
	n.start()
	produce("k5", "a")
	for _, table := range []string{"r", "d"} {
		eventually(t, "the count of "+table+" after restoring from its changelog", func() error {
			return same(counts(t, n, "SELECT * FROM "+table+" WHERE v = 'a';"), map[string]string{"a": "4"})
		})
	}
	last := func(topic string) *kgo.Record {
		ends, err := kadm.NewClient(kafkaClient(t, n.Kafka)).ListEndOffsets(timeoutCtx(t), topic)
		if err != nil {
			t.Fatal(err)
		}
		end, _ := ends.Lookup(topic, 0)
		recs := consumeRecords(t, n, topic, int(end.Offset))
		return recs[len(recs)-1]
	}
	if r := last(prefixed); len(r.Value) != 9 || string(r.Value[8:]) != "4" || be.BigEndian.Uint64(r.Value) != 2000 {
		t.Errorf("%s's last record %q after the restore, want the timestamp (2000) then the count 4 as that release wrote", prefixed, r.Value)
	}
	if r := last(freshLog); string(r.Value) != "4" || r.Timestamp.UnixMilli() != 2000 {
		t.Errorf("%s's last record %q at %d after the restore, want the count 4 alone at 2000", freshLog, r.Value, r.Timestamp.UnixMilli())
	}
	// An upgrade of it records "query/2" with it: after a replay the
	// upgraded query still writes the prefix.
	n.mustKsql("CREATE OR REPLACE TABLE r AS SELECT v, COUNT(k) AS n FROM s GROUP BY v HAVING COUNT(k) > 0;")
	n.restart()
	produce("k6", "a")
	eventually(t, "the upgraded query's count after a replay", func() error {
		return same(counts(t, n, "SELECT * FROM r WHERE v = 'a';"), map[string]string{"a": "5"})
	})
	if r := last(prefixed); len(r.Value) != 9 || string(r.Value[8:]) != "5" || be.BigEndian.Uint64(r.Value) != 2000 {
		t.Errorf("%s's last record %q after the upgrade and a replay, want the timestamp (2000) then the count 5", prefixed, r.Value)
	}
}

// TestRegistryKeyJoinRestoresFromChangelog: a stream–table join keyed in
// AVRO repartitions both sides (as ksqlDB does) and keeps the table in a
// store whose changelog keys are Avro under the changelog's own subject;
// after the server loses its local state the store is restored from that
// changelog and the join still finds the table's row.
func TestRegistryKeyJoinRestoresFromChangelog(t *testing.T) {
	t.Parallel()
	fake, n := externalRegistry(t)
	n.mustKsql(`CREATE STREAM clicks (usr STRING KEY, page STRING) WITH (KAFKA_TOPIC='clicks', KEY_FORMAT='AVRO', VALUE_FORMAT='JSON', PARTITIONS=1);
	  CREATE TABLE users (usr STRING PRIMARY KEY, city STRING) WITH (KAFKA_TOPIC='users', KEY_FORMAT='AVRO', VALUE_FORMAT='JSON', PARTITIONS=1);
	  INSERT INTO users (usr, city) VALUES ('ann', 'Oslo');
	  SET 'auto.offset.reset'='earliest';
	  CREATE STREAM enriched WITH (KAFKA_TOPIC='enriched') AS SELECT c.usr AS usr, page, city FROM clicks c JOIN users u ON c.usr = u.usr;`)
	// The click goes in only once the table's row is in the store (its
	// changelog holds it): the two sides come through separate repartition
	// topics, so an earlier click could reach the join before the row.
	changelog := internalTopic(t, n, "CSAS_ENRICHED_", "-RightSourceKeyed-Materialize-changelog")
	consumeRecords(t, n, changelog, 1)
	n.mustKsql(`INSERT INTO clicks (usr, page) VALUES ('ann', 'home');`)
	if got := consumeValues(t, n, "enriched", 1); string(got[0]) != `{"PAGE":"home","CITY":"Oslo"}` {
		t.Fatalf("enriched: %q", got[0])
	}
	for _, topic := range []string{changelog, internalTopic(t, n, "CSAS_ENRICHED_", "-Join-repartition"),
		internalTopic(t, n, "CSAS_ENRICHED_", "-RightSourceKeyed-SelectKey-repartition")} {
		if !fake.SubjectExists(topic + "-key") {
			t.Errorf("no subject %s-key: the internal topic's keys are not Avro", topic)
		}
	}
	if r := consumeRecords(t, n, changelog, 1)[0]; len(r.Key) < 5 || r.Key[0] != 0 {
		t.Errorf("%s key %q is not in Confluent's wire format", changelog, r.Key)
	}
	n.stop()
	if err := os.RemoveAll(filepath.Join(n.dataDir, "state")); err != nil {
		t.Fatal(err)
	}
	n.start()
	n.mustKsql(`INSERT INTO clicks (usr, page) VALUES ('ann', 'about');`)
	if got := consumeValues(t, n, "enriched", 2); string(got[1]) != `{"PAGE":"about","CITY":"Oslo"}` {
		t.Fatalf("enriched after the store was restored from its changelog: %q", got[1])
	}
}

// TestLegacyCommandKeepsJoinStoreNames: an n-way stream–stream join
// recorded by the release before ksqlDB's join store numbers
// (internalFormats "sources/2") keeps its second step's stores and
// changelogs (KSTREAM-JOINTHIS-0000000028) after the upgrade, while the
// same join recorded now numbers them as ksqlDB does (…-0000000016).
func TestLegacyCommandKeepsJoinStoreNames(t *testing.T) {
	t.Parallel()
	const topic, secret = "_old__command_topic", "the secret of the old service"
	br := startBrokerProcess(t)
	createTopic(t, br.Kafka, topic, 1)
	for _, s := range []string{"s1", "s2", "s3"} {
		createTopic(t, br.Kafka, s, 1)
	}
	const join = "SELECT s1.id AS id, s1.v AS v1, s2.v AS v2, s3.v AS v3 FROM s1 JOIN s2 WITHIN 5 SECONDS ON s1.id = s2.id JOIN s3 WITHIN 10 SECONDS ON s1.id = s3.id;"
	cl := kafkaClient(t, br.Kafka)
	for i, cmd := range []map[string]any{
		{"seq": 0, "statement": "CREATE STREAM s1 (id INT KEY, v STRING) WITH (KAFKA_TOPIC='s1', VALUE_FORMAT='JSON', PARTITIONS=1);"},
		{"seq": 1, "statement": "CREATE STREAM s2 (id INT KEY, v STRING) WITH (KAFKA_TOPIC='s2', VALUE_FORMAT='JSON', PARTITIONS=1);"},
		{"seq": 2, "statement": "CREATE STREAM s3 (id INT KEY, v STRING) WITH (KAFKA_TOPIC='s3', VALUE_FORMAT='JSON', PARTITIONS=1);"},
		{"seq": 3, "statement": "CREATE STREAM o AS " + join, "queryId": "CSAS_O_3", "internalFormats": "sources/2", "storeFormats": "query"},
	} {
		b, err := json.Marshal(cmd)
		if err != nil {
			t.Fatal(err)
		}
		if err := cl.ProduceSync(timeoutCtx(t), formatOneRecord(topic, secret, fmt.Sprint(i), string(b))).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	cfg := writeConfig(t, "sqlstream.command.topic.secret="+secret+"\n")
	n := startServerOn(t, br.Kafka, "--service-id", "old_", "--config", cfg)
	internalTopic(t, n, "CSAS_O_3", "-KSTREAM-JOINTHIS-0000000028-store-changelog")
	internalTopic(t, n, "CSAS_O_3", "-KSTREAM-JOINOTHER-0000000029-store-changelog")

	n.mustKsql("CREATE STREAM p AS " + join)
	internalTopic(t, n, "CSAS_P_", "-KSTREAM-JOINTHIS-0000000016-store-changelog")
	internalTopic(t, n, "CSAS_P_", "-KSTREAM-JOINOTHER-0000000017-store-changelog")
	topics, err := kadm.NewClient(kafkaClient(t, n.Kafka)).ListTopics(timeoutCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range topics.Names() {
		if strings.Contains(name, "CSAS_O_3") && strings.Contains(name, "-0000000016-") {
			t.Errorf("the old query has a store topic numbered as the new one: %s", name)
		}
	}
}
