package tests

import (
	be "encoding/binary"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
)

// TestWindowedRegistryJoin: a stream–stream join of a hopping-windowed
// and a tumbling-windowed stream keyed in JSON_SR (keys written by
// franz-go's sr.Serde under the schemas CREATE registered, then the
// window start as Kafka Streams' windowed serializer appends it)
// repartitions both sides, as ksqlDB does: the repartition topics' keys
// are the registry's wire format plus the left's windowed suffix, their
// values carry each row's own window, and windows that start together
// join, the right side keeping its own window end.
func TestWindowedRegistryJoin(t *testing.T) {
	t.Parallel()
	fake, n := externalRegistry(t)
	n.mustKsql(`CREATE STREAM hw (id INT KEY, v BIGINT) WITH (KAFKA_TOPIC='hw', KEY_FORMAT='JSON_SR', VALUE_FORMAT='JSON', WINDOW_TYPE='HOPPING', WINDOW_SIZE='5 SECONDS', PARTITIONS=1);
	  CREATE STREAM tw (id INT KEY, v BIGINT) WITH (KAFKA_TOPIC='tw', KEY_FORMAT='JSON_SR', VALUE_FORMAT='JSON', WINDOW_TYPE='TUMBLING', WINDOW_SIZE='2 SECONDS', PARTITIONS=1);`)
	cl, err := sr.NewClient(sr.URLs(fake.URL()))
	if err != nil {
		t.Fatal(err)
	}
	kc := kafkaClient(t, n.Kafka)
	produceWindowed := func(topic string, start, v int64) {
		t.Helper()
		ss, err := cl.SchemaByVersion(timeoutCtx(t), topic+"-key", -1)
		if err != nil {
			t.Fatal(err)
		}
		var serde sr.Serde
		serde.Register(ss.ID, int32(0), sr.EncodeFn(json.Marshal))
		k, err := serde.Encode(int32(1))
		if err != nil {
			t.Fatal(err)
		}
		k = be.BigEndian.AppendUint64(k, uint64(start))
		rec := &kgo.Record{Topic: topic, Key: k, Value: []byte(fmt.Sprintf(`{"V":%d}`, v)), Timestamp: time.UnixMilli(start)}
		if err := kc.ProduceSync(timeoutCtx(t), rec).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	produceWindowed("hw", 0, 1)
	produceWindowed("hw", 1000, 2)
	produceWindowed("hw", 2000, 3)
	produceWindowed("tw", 0, 4)
	produceWindowed("tw", 2000, 5)
	n.mustKsql(`SET 'auto.offset.reset'='earliest';
	  CREATE STREAM wj AS SELECT hw.id AS id, hw.v AS hv, tw.v AS tv, tw.WINDOWEND AS tend FROM hw JOIN tw WITHIN 1 MINUTE ON hw.id = tw.id;`)

	var got []string
	for _, v := range consumeValues(t, n, "WJ", 2) {
		got = append(got, string(v))
	}
	sort.Strings(got)
	want := []string{`{"HV":1,"TV":4,"TEND":2000}`, `{"HV":3,"TV":5,"TEND":4000}`}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the join wrote %v, want %v", got, want)
	}
	topic := internalTopic(t, n, "CSAS_WJ_", "-Join-right-repartition")
	for _, r := range consumeRecords(t, n, topic, 2) {
		// magic byte, 4-byte schema id, the JSON key, the 8-byte start
		if len(r.Key) < 1+4+1+8 || r.Key[0] != 0 || string(r.Key[5:len(r.Key)-8]) != "1" {
			t.Fatalf("%s key %q is not the registry's wire format of 1 with a window start", topic, r.Key)
		}
		start := int64(be.BigEndian.Uint64(r.Key[len(r.Key)-8:]))
		var val map[string]any
		if err := json.Unmarshal(r.Value, &val); err != nil {
			t.Fatalf("%s value %q: %v", topic, r.Value, err)
		}
		if val["WINDOWSTART"] != float64(start) || val["WINDOWEND"] != float64(start+2000) {
			t.Errorf("%s record %q → %q does not carry its own window [%d, %d)", topic, r.Key, r.Value, start, start+2000)
		}
	}
}
