package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"
)

const jbidSchema = `{"type":"object","properties":{"AUCTION":{"type":"integer"},"PRICE":{"type":"integer"},"BIDDER":{"type":"string"}}}`

// TestJSONSRChangelogsReadByStandardDeserializers: as
// TestChangelogsReadByStandardDeserializers for JSON_SR: the changelog
// records of a JSON_SR aggregate store and of a join's JSON_SR table
// store are Confluent's wire header and a JSON document that
// santhosh-tekuri/jsonschema validates against the schema the record's id
// names (what a Confluent JSON Schema deserializer checks); the store's
// timestamp is the record's; after the local state is deleted the stores
// are rebuilt from them.
func TestJSONSRChangelogsReadByStandardDeserializers(t *testing.T) {
	t.Parallel()
	fake, n := externalRegistry(t)
	createTopic(t, n.Kafka, "jbids", 1)
	id := registerSchema(t, fake, "jbids-value", sr.TypeJSON, jbidSchema)
	var serde sr.Serde
	serde.Register(id, map[string]any{}, sr.EncodeFn(json.Marshal))
	bid := func(ts, auction, price int64, bidder string) {
		t.Helper()
		v, err := serde.Encode(map[string]any{"AUCTION": auction, "PRICE": price, "BIDDER": bidder})
		if err != nil {
			t.Fatal(err)
		}
		if err := kafkaClient(t, n.Kafka).ProduceSync(timeoutCtx(t), &kgo.Record{Topic: "jbids", Value: v, Timestamp: time.UnixMilli(ts)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	n.mustKsql(`CREATE STREAM jbids WITH (KAFKA_TOPIC='jbids', KEY_FORMAT='KAFKA', VALUE_FORMAT='JSON_SR');
	  CREATE TABLE jbidders (name STRING PRIMARY KEY, city STRING) WITH (KAFKA_TOPIC='jbidders', KEY_FORMAT='KAFKA', VALUE_FORMAT='JSON_SR', PARTITIONS=1);
	  INSERT INTO jbidders (name, city) VALUES ('ann', 'Oslo');
	  SET 'auto.offset.reset'='earliest';
	  CREATE TABLE jtotals AS SELECT auction, COUNT(*) AS n, SUM(price) AS total FROM jbids GROUP BY auction;
	  CREATE STREAM jcities AS SELECT b.bidder AS bidder, u.city AS city, b.price AS price FROM jbids b JOIN jbidders u ON b.bidder = u.name;`)

	joinLog := internalTopic(t, n, "CSAS_JCITIES_", "-KafkaTopic_Right-Reduce-changelog")
	r := consumeRecords(t, n, joinLog, 1)[0]
	if got := jsonSRRecord(t, fake, joinLog, r.Value); string(r.Key) != "ann" || got["CITY"] != "Oslo" {
		t.Errorf("%s holds %q → %v, want ann's row (CITY Oslo)", joinLog, r.Key, got)
	}
	if r.Timestamp.UnixMilli() <= 0 {
		t.Errorf("%s record timestamp %v, want the row's time", joinLog, r.Timestamp)
	}

	bid(1000, 1, 5, "ann")
	bid(2000, 1, 50, "bob")
	bid(3000, 2, 30, "ann")
	totalsLog := internalTopic(t, n, "CTAS_JTOTALS_", "-Aggregate-Aggregate-Materialize-changelog")
	eventually(t, totalsLog+" read as JSON Schema", func() error {
		return lastPerKey(t, n, totalsLog, "[1 → 2 55 @2000 2 → 1 30 @3000]", func(r *kgo.Record) (string, error) {
			return accumulators(jsonSRRecord(t, fake, totalsLog, r.Value)), nil
		})
	})

	pulls := func() string {
		return fmt.Sprint(mustPull(t, n, "SELECT * FROM jtotals WHERE auction = 1;"), mustPull(t, n, "SELECT * FROM jtotals WHERE auction = 2;"))
	}
	waitPulls := func(what, want string) {
		t.Helper()
		eventually(t, what, func() error {
			if got := pulls(); got != want {
				return fmt.Errorf("got %s, want %s", got, want)
			}
			return nil
		})
	}
	waitPulls("the pull queries", "[[1 2 55]] [[2 1 30]]")
	consumeValues(t, n, "JCITIES", 2)

	n.stop()
	if err := os.RemoveAll(filepath.Join(n.dataDir, "state")); err != nil {
		t.Fatal(err)
	}
	n.start()
	waitPulls("the pull queries after restoring from the changelogs", "[[1 2 55]] [[2 1 30]]")
	bid(4000, 1, 7, "ann")
	waitPulls("the counts go on from the restored accumulators", "[[1 3 62]] [[2 1 30]]")
	vals := consumeValues(t, n, "JCITIES", 3)
	if row := jsonSRRecord(t, fake, "JCITIES", vals[2]); row["CITY"] != "Oslo" || fmt.Sprint(row["PRICE"]) != "7" {
		t.Errorf("JCITIES after the restore: %v, want the new bid (7) with ann's city from the restored table store", row)
	}
}

// jsonSRRecord reads a value as a Confluent JSON Schema deserializer
// does: the wire header, then the JSON document validated against the
// schema the id names (santhosh-tekuri/jsonschema).
func jsonSRRecord(t *testing.T, fake *srfake.Registry, topic string, value []byte) map[string]any {
	t.Helper()
	_, s := schemaOf(t, fake, value)
	if s.Type != sr.TypeJSON {
		t.Fatalf("%s value %q: schema of type %v, want JSON", topic, value, s.Type)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(s.Schema))
	if err != nil {
		t.Fatalf("%s schema %s: %v", topic, s.Schema, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("schema.json")
	if err != nil {
		t.Fatalf("%s schema %s does not compile: %v", topic, s.Schema, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(value[5:]))
	if err != nil {
		t.Fatalf("%s value %q after the header is not JSON: %v", topic, value, err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("%s value %q does not validate against %s: %v", topic, value, s.Schema, err)
	}
	var out map[string]any
	if err := json.Unmarshal(value[5:], &out); err != nil {
		t.Fatal(err)
	}
	return out
}
