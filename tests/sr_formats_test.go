package tests

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"
)

// externalRegistry serves franz-go's srfake (another implementation than
// sqlstream's) on loopback and returns it with a node configured to use
// it through ksql.schema.registry.url.
func externalRegistry(t *testing.T) (*srfake.Registry, *node) {
	t.Helper()
	fake := srfake.New()
	t.Cleanup(fake.Close)
	n := startNodeExternalRegistry(t, "--config", writeConfig(t, "ksql.schema.registry.url="+fake.URL()+"\n"))
	return fake, n
}

// srUser is what a Confluent JSON Schema producer writes: franz-go's
// sr.Serde with encoding/json, not sqlstream's encoder.
type srUser struct {
	NAME string `json:"name"`
	AGE  int    `json:"age"`
}

const srUserSchema = `{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}}}`

// produceJSONSR registers srUserSchema under topic-value with franz-go's
// registry client and writes users with sr.Serde (key: the name, bare).
func produceJSONSR(t *testing.T, n *node, fake *srfake.Registry, topic string, users ...srUser) {
	t.Helper()
	cl, err := sr.NewClient(sr.URLs(fake.URL()))
	if err != nil {
		t.Fatal(err)
	}
	ss, err := cl.CreateSchema(timeoutCtx(t), topic+"-value", sr.Schema{Type: sr.TypeJSON, Schema: srUserSchema})
	if err != nil {
		t.Fatal(err)
	}
	var serde sr.Serde
	serde.Register(ss.ID, srUser{}, sr.EncodeFn(json.Marshal))
	kc := kafkaClient(t, n.Kafka)
	for _, u := range users {
		v, err := serde.Encode(u)
		if err != nil {
			t.Fatal(err)
		}
		if err := kc.ProduceSync(timeoutCtx(t), &kgo.Record{Topic: topic, Key: []byte(u.NAME), Value: v}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}

// consumeJSONSR reads n records of topic and decodes each value with
// sr.Serde by the schema id in its header, checking the id is one the
// registry serves as a JSON schema; it returns the values sorted.
func consumeJSONSR(t *testing.T, n *node, fake *srfake.Registry, topic string, count int) []string {
	t.Helper()
	cl, err := sr.NewClient(sr.URLs(fake.URL()))
	if err != nil {
		t.Fatal(err)
	}
	kc := kafkaClient(t, n.Kafka, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx := timeoutCtx(t)
	var serde sr.Serde
	seen := map[int]bool{}
	var got []string
	for len(got) < count {
		fs := kc.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("consumed %d of %d records from %s: %v", len(got), count, topic, got)
		}
		fs.EachRecord(func(r *kgo.Record) {
			var h sr.ConfluentHeader
			id, _, err := h.DecodeID(r.Value)
			if err != nil {
				t.Fatalf("%s@%d: no wire header: %q", topic, r.Offset, r.Value)
			}
			if !seen[id] {
				seen[id] = true
				s, err := cl.SchemaByID(ctx, id)
				if err != nil || s.Type != sr.TypeJSON {
					t.Fatalf("%s@%d: schema id %d: %+v, %v", topic, r.Offset, id, s, err)
				}
				serde.Register(id, map[string]any{}, sr.DecodeFn(json.Unmarshal))
			}
			var m map[string]any
			if err := serde.Decode(r.Value, &m); err != nil {
				t.Fatalf("%s@%d: sr.Serde cannot read %q: %v", topic, r.Offset, r.Value, err)
			}
			b, _ := json.Marshal(m)
			got = append(got, string(b))
		})
	}
	sort.Strings(got)
	return got
}

// TestJSONSRExternalRegistry is issue 17's proof for JSON_SR against an
// external registry (srfake, not sqlstream's): a stream created by
// (partial) inference reads what a Confluent-format producer wrote, CSAS
// registers its sink schema and writes the wire format a standard
// deserializer reads, a CTAS with JSON_SR keys answers pull queries
// before and after a restart, bad bytes are processing-log errors that
// do not stop the query, and DROP … DELETE TOPIC deletes the subject.
func TestJSONSRExternalRegistry(t *testing.T) {
	t.Parallel()
	fake, n := externalRegistry(t)
	createTopic(t, n.Kafka, "users", 1)
	produceJSONSR(t, n, fake, "users", srUser{"ann", 40}, srUser{"bob", 12})

	n.mustKsql(`CREATE STREAM users (k STRING KEY) WITH (KAFKA_TOPIC='users', VALUE_FORMAT='JSON_SR');`)
	desc := fmt.Sprint(n.mustKsql(`DESCRIBE users;`))
	for _, want := range []string{"NAME", "AGE", "BIGINT"} {
		if !strings.Contains(desc, want) {
			t.Fatalf("DESCRIBE users lacks %s (inferred from users-value): %s", want, desc)
		}
	}
	n.mustKsql(`SET 'auto.offset.reset'='earliest';
	  CREATE STREAM adults WITH (KAFKA_TOPIC='adults') AS SELECT k, name, age FROM users WHERE age >= 18;
	  CREATE TABLE ages WITH (KEY_FORMAT='JSON_SR', VALUE_FORMAT='JSON_SR') AS SELECT name, MAX(age) AS oldest FROM users GROUP BY name;`)

	if got := consumeJSONSR(t, n, fake, "adults", 1); fmt.Sprint(got) != `[{"AGE":40,"NAME":"ann"}]` {
		t.Errorf("adults: %v", got)
	}
	sink, ok := fake.GetSchema("adults-value", 1)
	want := `{"type":"object","properties":{"NAME":{"connect.index":0,"oneOf":[{"type":"null"},{"type":"string"}]},"AGE":{"connect.index":1,"oneOf":[{"type":"null"},{"type":"integer","connect.type":"int64"}]}}}`
	if !ok || sink.Type != sr.TypeJSON || sink.Schema.Schema != want {
		t.Errorf("adults-value: %v %+v, want %s", ok, sink, want)
	}
	if !fake.SubjectExists("AGES-key") || !fake.SubjectExists("AGES-value") {
		t.Errorf("CTAS registered no AGES-key / AGES-value subjects")
	}
	eventually(t, "pull from ages", func() error {
		return same(counts(t, n, "SELECT * FROM ages WHERE name = 'ann';"), map[string]string{"ann": "40"})
	})

	// Bad bytes: no header, an unknown schema id, JSON of the wrong type.
	var h sr.ConfluentHeader
	unknown, _ := h.AppendEncode(nil, 4242, nil)
	kc := kafkaClient(t, n.Kafka)
	for _, v := range [][]byte{[]byte(`{"name":"x","age":1}`), append(unknown, `{"name":"y","age":50}`...)} {
		if err := kc.ProduceSync(timeoutCtx(t), &kgo.Record{Topic: "users", Key: []byte("bad"), Value: v}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	produceJSONSR(t, n, fake, "users", srUser{"cid", 30})
	if got := consumeJSONSR(t, n, fake, "adults", 2); fmt.Sprint(got) != `[{"AGE":30,"NAME":"cid"} {"AGE":40,"NAME":"ann"}]` {
		t.Errorf("adults after bad records: %v", got)
	}
	logged := strings.Join(consume(t, n.Kafka, "default_ksql_processing_log", 4), "\n")
	for _, want := range []string{`"RECORDOFFSET":2`, `"RECORDOFFSET":3`, "wire header", "schema id 4242"} {
		if !strings.Contains(logged, want) {
			t.Errorf("processing log lacks %s: %s", want, logged)
		}
	}

	n.restart()
	eventually(t, "pull from ages after a restart", func() error {
		return same(counts(t, n, "SELECT * FROM ages WHERE name = 'cid';"), map[string]string{"cid": "30"})
	})
	produceJSONSR(t, n, fake, "users", srUser{"dan", 70})
	if got := consumeJSONSR(t, n, fake, "adults", 3); len(got) != 3 || got[2] != `{"AGE":70,"NAME":"dan"}` {
		t.Errorf("adults after a restart: %v", got)
	}

	n.mustKsql(`TERMINATE CSAS_ADULTS_1; DROP STREAM adults DELETE TOPIC;`)
	if fake.SubjectExists("adults-value") {
		t.Errorf("DROP STREAM adults DELETE TOPIC left subject adults-value")
	}
}

// TestJSONSRWithoutRegistry: an SR format without a configured registry
// is a statement error naming the property, and nothing is created. (With
// the embedded broker the embedded registry always runs: this server uses
// a separate broker and names no registry.)
func TestJSONSRWithoutRegistry(t *testing.T) {
	t.Parallel()
	br := startBrokerProcess(t)
	n := startServerOn(t, br.Kafka)
	status, body := n.ksql(`CREATE STREAM s (a INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON_SR', PARTITIONS=1);`, nil)
	if status != 400 || !strings.Contains(fmt.Sprint(body), "Cannot create topic 's' with format JSON_SR without configuring 'ksql.schema.registry.url'") {
		t.Fatalf("JSON_SR without a registry: %d %v", status, body)
	}
	if out := fmt.Sprint(n.mustKsql(`SHOW STREAMS;`)); strings.Contains(out, "\"S\"") {
		t.Errorf("stream S exists after a refused CREATE: %s", out)
	}
}

// TestAvroEmbeddedRegistry: with no registry configured, the embedded one
// (on by default beside the embedded broker) serves the engine: CREATE
// STREAM with columns registers pv-value, INSERT VALUES writes the
// Confluent wire format, a CTAS registers its sink's subject and answers
// pull queries, and a restart of the binary keeps ids, subjects and
// counts.
func TestAvroEmbeddedRegistry(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	n.mustKsql(`CREATE STREAM pv (usr STRING KEY, page STRING) WITH (KAFKA_TOPIC='pv', VALUE_FORMAT='AVRO', PARTITIONS=1);`)
	n.mustKsql(`INSERT INTO pv (usr, page) VALUES ('ann', 'home');`)
	n.mustKsql(`INSERT INTO pv (usr, page) VALUES ('ann', 'about');`)
	n.mustKsql(`SET 'auto.offset.reset'='earliest';
		CREATE TABLE visits WITH (VALUE_FORMAT='AVRO') AS SELECT usr, COUNT(*) AS n FROM pv GROUP BY usr;`)
	subjects := func() []string { // the registry's port is new at every start
		got, err := registryClient(t, registryURL(t, n)).Subjects(timeoutCtx(t))
		if err != nil {
			t.Fatalf("subjects of the embedded registry: %v", err)
		}
		sort.Strings(got)
		return got
	}
	// The CTAS registers its sink's subject before it answers; the
	// aggregate's changelog subject comes with the store's first
	// changelog record.
	if got := fmt.Sprint(subjects()); !strings.Contains(got, "VISITS-value") || !strings.Contains(got, "pv-value") {
		t.Fatalf("embedded registry subjects %v, want VISITS-value and pv-value", got)
	}
	const want = "[VISITS-value default_query_CTAS_VISITS_1-Aggregate-Aggregate-Materialize-changelog-value pv-value]"
	count := func(want int) func() error {
		return func() error {
			rows, err := pullRows(n, "SELECT * FROM visits WHERE usr = 'ann';")
			if err != nil {
				return err
			}
			if fmt.Sprint(rows) != fmt.Sprintf("[[ann %d]]", want) {
				return fmt.Errorf("visits holds %v, want [[ann %d]]", rows, want)
			}
			return nil
		}
	}
	eventually(t, "ann's two visits", count(2))
	eventually(t, "the sink's, the changelog's and the source's subjects", func() error {
		if got := fmt.Sprint(subjects()); got != want {
			return fmt.Errorf("subjects %s, want %s", got, want)
		}
		return nil
	})
	n.stop()
	n.start()
	eventually(t, "ann's two visits after a restart", count(2))
	n.mustKsql(`INSERT INTO pv (usr, page) VALUES ('ann', 'contact');`) // read by the restarted query
	eventually(t, "ann's third visit, after the restart", count(3))
	if after := fmt.Sprint(subjects()); after != want {
		t.Fatalf("subjects after a restart %v, want %v", after, want)
	}
}

// PRINT's Key format / Value format header names the registry format of
// wire-format bytes whose schema id the registry serves (AVRO, PROTOBUF,
// JSON_SR), as ksqlDB's does, instead of KAFKA_BYTES; bytes whose id the
// registry does not know are still KAFKA_BYTES.
func TestPrintHeaderNamesRegistryFormats(t *testing.T) {
	t.Parallel()
	fake, n := externalRegistry(t)
	var h sr.ConfluentHeader
	wire := func(id int, payload string) []byte {
		b, err := h.AppendEncode(nil, id, nil)
		if err != nil {
			t.Fatal(err)
		}
		return append(b, payload...)
	}
	avro := registerSchema(t, fake, "bids_avro-value", sr.TypeAvro, bidAvro)
	proto := registerSchema(t, fake, "bids_proto-value", sr.TypeProtobuf, bidProto)
	jsonKey := registerSchema(t, fake, "users_sr-key", sr.TypeJSON, `{"type":"string"}`)
	jsonVal := registerSchema(t, fake, "users_sr-value", sr.TypeJSON, srUserSchema)
	for _, c := range []struct {
		topic      string
		key, value []byte
		header     string
	}{
		{"bids_avro", []byte("b1"), wire(avro, "\x02\x04\x06ann"), "Key format: KAFKA_STRING\nValue format: AVRO\n"},
		{"bids_proto", []byte("b1"), wire(proto, "\x00\x08\x01\x10\x02\x1a\x03ann"), "Key format: KAFKA_STRING\nValue format: PROTOBUF\n"},
		{"users_sr", wire(jsonKey, `"ann"`), wire(jsonVal, `{"name":"ann","age":40}`), "Key format: JSON_SR\nValue format: JSON_SR\n"},
		{"unknown_id", []byte("u"), wire(4242, `{"name":"x"}`), "Key format: KAFKA_STRING\nValue format: KAFKA_BYTES\n"},
	} {
		createTopic(t, n.Kafka, c.topic, 1)
		kc := kafkaClient(t, n.Kafka)
		if err := kc.ProduceSync(timeoutCtx(t), &kgo.Record{Topic: c.topic, Key: c.key, Value: c.value}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		status, body := n.post("/query", "application/vnd.ksql.v1+json", map[string]any{"ksql": "PRINT '" + c.topic + "' FROM BEGINNING LIMIT 1;"})
		if status != 200 || !strings.Contains(string(body), c.header+"rowtime: ") {
			t.Errorf("PRINT %s: %d %q, want the header %q", c.topic, status, body, c.header)
		}
	}
}
