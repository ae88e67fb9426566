package runtime_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestAsOfJoinSurvivesRestartAndLostState runs an as-of join with a GRACE
// PERIOD over the Kafka protocol with orders waiting in its buffer, then
// restarts the engine (local state kept) and later loses the local state:
// the buffer and the table's versions come back from their changelogs, so
// the waiting orders are joined exactly once, with a rate that arrived
// late after the restart.
func TestAsOfJoinSurvivesRestartAndLostState(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.exec(`CREATE STREAM orders (currency VARCHAR KEY, id VARCHAR)
	  WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='JSON', PARTITIONS=1);
	CREATE TABLE rates (currency VARCHAR PRIMARY KEY, rate DOUBLE)
	  WITH (KAFKA_TOPIC='rates', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	out := r.exec(`CREATE STREAM usd AS SELECT o.currency, o.id, r.rate FROM orders o
	  JOIN rates FOR SYSTEM_TIME AS OF o.ROWTIME AS r GRACE PERIOD 5 SECONDS ON o.currency = r.currency;`)
	app := "default_query_" + *out[0].(api.CommandStatusEntity).CommandStatus.QueryID
	versions, buffer := app+"-KafkaTopic_Right-Versioned-changelog", app+"-Join-Buffer-changelog"

	r.produceAt("rates", "USD", `{"RATE":1.0}`, 1000)
	r.produceAt("rates", "USD", `{"RATE":2.0}`, 3000)
	r.awaitKey(versions, versionKey("USD", 3000))
	r.produceAt("orders", "USD", `{"ID":"o1"}`, 2000)
	r.produceAt("orders", "USD", `{"ID":"o2"}`, 4000)
	r.awaitKey(buffer, bufferKey(4000, 1))
	r.awaitCommitted(app, "orders", "rates")

	r.restart()
	r.produceAt("rates", "USD", `{"RATE":1.5}`, 1500) // late, within the grace
	r.awaitKey(versions, versionKey("USD", 1500))
	r.produceAt("orders", "USD", `{"ID":"o3"}`, 9000) // releases o1 and o2
	expectRates(t, r, `USD={"ID":"o1","RATE":1.5}`, `USD={"ID":"o2","RATE":2.0}`)
	r.awaitCommitted(app, "orders", "rates")

	r.e.Close()
	r.e = nil
	if err := os.RemoveAll(r.dir + "/state"); err != nil {
		t.Fatal(err)
	}
	r.startEngine()
	r.produceAt("orders", "USD", `{"ID":"o4"}`, 20000) // releases o3
	expectRates(t, r, `USD={"ID":"o1","RATE":1.5}`, `USD={"ID":"o2","RATE":2.0}`, `USD={"ID":"o3","RATE":2.0}`)
	r.awaitCommitted(app, "orders", "rates")
	if all := values(r.consumeAll("USD")); len(all) != 3 {
		t.Fatalf("USD after the restarts: %q, want each order once", all)
	}
}

// expectRates reads len(want) records of USD and requires exactly want.
func expectRates(t *testing.T, r *rig, want ...string) {
	t.Helper()
	got := values(r.consume("USD", len(want)))
	sort.Strings(got)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("USD: got %q, want %q", got, want)
	}
}

func (r *rig) produceAt(topic, key, value string, ts int64) {
	r.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.b.Addrs()...))
	if err != nil {
		r.t.Fatal(err)
	}
	defer cl.Close()
	rec := &kgo.Record{Topic: topic, Key: []byte(key), Value: []byte(value), Timestamp: time.UnixMilli(ts)}
	if err := cl.ProduceSync(context.Background(), rec).FirstErr(); err != nil {
		r.t.Fatal(err)
	}
}

// awaitKey waits until topic has a record with key (a store's changelog:
// the record was processed).
func (r *rig) awaitKey(topic string, key []byte) {
	r.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.b.Addrs()...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		r.t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			r.t.Fatalf("no record with key %q in %s; %s", key, topic, r.diagnosis())
		}
		for _, rec := range fs.Records() {
			if bytes.Equal(rec.Key, key) {
				return
			}
		}
	}
}

// diagnosis describes the engine's queries and the committed and end
// offsets of every group and topic, for a test that waited in vain.
func (r *rig) diagnosis() string {
	var b strings.Builder
	if r.e != nil {
		out, err := r.e.Execute(context.Background(), api.KsqlRequest{Ksql: "SHOW QUERIES EXTENDED;"})
		fmt.Fprintf(&b, "queries: %+v (err %v)\n", out, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	adm := r.admin()
	if ends, err := adm.ListEndOffsets(ctx); err == nil {
		ends.Each(func(o kadm.ListedOffset) { fmt.Fprintf(&b, "end %s/%d=%d\n", o.Topic, o.Partition, o.Offset) })
	}
	if groups, err := adm.ListGroups(ctx); err == nil {
		for _, g := range groups.Groups() {
			offs, err := adm.FetchOffsets(ctx, g)
			fmt.Fprintf(&b, "group %s: %v (err %v)\n", g, offs.Offsets().Sorted(), err)
		}
	}
	return b.String()
}

// versionKey is a versioned store's changelog key: the table's KAFKA key ‖ time.
func versionKey(key string, ts int64) []byte {
	return binary.BigEndian.AppendUint64([]byte(key), uint64(ts))
}

// bufferKey is an as-of join buffer's changelog key: ts ‖ offset ‖ 0.
func bufferKey(ts, offset int64) []byte {
	k := binary.BigEndian.AppendUint64(nil, uint64(ts))
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(k, uint64(offset)), 0)
}
