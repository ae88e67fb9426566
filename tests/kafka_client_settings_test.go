package tests

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestKafkaClientSettingsThroughTheBinary: a server configuration with
// ksqlDB's prefixed Kafka client settings starts, SHOW PROPERTIES lists
// the client settings, and a CREATE STREAM … AS SELECT after SET
// 'acks'='all' and SET 'producer.compression.type'='zstd' writes
// zstd-compressed record batches, where the same query without them
// writes uncompressed ones, Kafka's producer default (franz-go's own
// default, snappy, does not apply).
func TestKafkaClientSettingsThroughTheBinary(t *testing.T) {
	t.Parallel()
	n := startNode(t, "--config", writeConfig(t,
		"ksql.streams.producer.linger.ms=5\nksql.streams.consumer.max.poll.records=100\n"))
	n.mustKsql("CREATE STREAM src (id VARCHAR KEY, v VARCHAR) WITH (KAFKA_TOPIC='src', VALUE_FORMAT='JSON', PARTITIONS=1);")
	const rows = 20
	var kvs []string
	for i := range rows {
		kvs = append(kvs, fmt.Sprint(i), fmt.Sprintf(`{"V":"%s"}`, strings.Repeat("value ", 20)))
	}
	produce(t, n.Kafka, "src", kvs...)

	n.mustKsql(`SET 'auto.offset.reset'='earliest';
	  CREATE STREAM plain WITH (KAFKA_TOPIC='plain') AS SELECT * FROM src;`)
	n.mustKsql(`SET 'auto.offset.reset'='earliest'; SET 'acks'='all'; SET 'producer.compression.type'='zstd';
	  CREATE STREAM squeezed WITH (KAFKA_TOPIC='squeezed') AS SELECT * FROM src;`)
	for _, c := range []struct {
		topic string
		want  uint8
	}{{"plain", 0}, {"squeezed", 4}} { // unset: none
		topic, want := c.topic, c.want
		for i, r := range consumeN(t, n.Kafka, topic, rows) {
			if got := r.Attrs.CompressionType(); got != want {
				t.Fatalf("%s record %d: compression type %d, want %d", topic, i, got, want)
			}
		}
	}

	out, err := json.Marshal(n.mustKsql("SHOW PROPERTIES;"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"name":"ksql.streams.compression.type"`, `"name":"ksql.streams.producer.linger.ms"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("SHOW PROPERTIES lacks %s", want)
		}
	}
	status, v := n.ksql("SET 'producer.compression.type'='brotli'; SHOW STREAMS;", nil)
	msg, _ := v.(map[string]any)["message"].(string)
	if status != 400 || !strings.Contains(msg, "String must be one of: none, gzip, snappy, lz4, zstd") {
		t.Errorf("SET 'producer.compression.type'='brotli': %d %v", status, v)
	}
}

// consumeN reads the first n records of topic from the start.
func consumeN(t *testing.T, addr, topic string, n int) []*kgo.Record {
	t.Helper()
	cl := kafkaClient(t, addr, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx := timeoutCtx(t)
	var out []*kgo.Record
	for len(out) < n {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%s: %d of %d records before the deadline", topic, len(out), n)
		}
		out = append(out, fs.Records()...)
	}
	return out
}
