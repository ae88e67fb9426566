package tests

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	hamba "github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
)

// timedBid is a Bid with its event time, the column TIMESTAMP names.
type timedBid struct {
	Auction  int64 `avro:"auction"`
	DateTime int64 `avro:"date_time"`
}

const timedBidAvro = `{"type":"record","name":"Bid","fields":[{"name":"auction","type":"long"},` +
	`{"name":"date_time","type":{"type":"long","logicalType":"timestamp-millis"}}]}`

// TestInferredTimestampColumn: a stream over an AVRO topic that lists no
// columns names an inferred column as its TIMESTAMP (ksqlDB infers the
// columns first); CSAS over it writes each record at that column's time,
// not at the time it was produced, and a name the schema lacks is refused.
func TestInferredTimestampColumn(t *testing.T) {
	t.Parallel()
	fake, n := externalRegistry(t)
	createTopic(t, n.Kafka, "timed", 1)
	id := registerSchema(t, fake, "timed-value", sr.TypeAvro, timedBidAvro)
	var serde sr.Serde
	schema := hamba.MustParse(timedBidAvro)
	serde.Register(id, timedBid{}, sr.EncodeFn(func(v any) ([]byte, error) { return hamba.Marshal(schema, v) }))
	produceValues(t, n, "timed", serde.MustEncode(timedBid{1, 1_000_000}), serde.MustEncode(timedBid{2, 2_000_000}))

	n.mustKsql(`CREATE STREAM timed WITH (KAFKA_TOPIC='timed', VALUE_FORMAT='AVRO', TIMESTAMP='date_time');
	  SET 'auto.offset.reset'='earliest';
	  CREATE STREAM timed_out WITH (KAFKA_TOPIC='timed_out', VALUE_FORMAT='JSON') AS SELECT auction FROM timed;`)
	want := `[{"AUCTION":1}@1000000 {"AUCTION":2}@2000000]`
	if got := timedRecords(t, n, 2); got != want {
		t.Errorf("timed_out: %s, want %s", got, want)
	}
	// The recorded statement replays after a restart with its timestamp.
	n.restart()
	produceValues(t, n, "timed", serde.MustEncode(timedBid{3, 3_000_000}))
	want = `[{"AUCTION":1}@1000000 {"AUCTION":2}@2000000 {"AUCTION":3}@3000000]`
	if got := timedRecords(t, n, 3); got != want {
		t.Errorf("timed_out after a restart: %s, want %s", got, want)
	}
	status, body := n.ksql(`CREATE STREAM untimed WITH (KAFKA_TOPIC='timed', VALUE_FORMAT='AVRO', TIMESTAMP='missing');`, nil)
	if msg := jsonText(t, body); status != 400 || !strings.Contains(msg, "does not exist in the schema: 'MISSING'") {
		t.Errorf("TIMESTAMP naming no inferred column: %d %s", status, msg)
	}
}

// timedRecords reads count records of timed_out from the start, each as
// value@timestamp, sorted.
func timedRecords(t *testing.T, n *node, count int) string {
	t.Helper()
	kc := kafkaClient(t, n.Kafka, kgo.ConsumeTopics("timed_out"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx := timeoutCtx(t)
	var got []string
	for len(got) < count {
		fs := kc.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("consumed %v of %d records from timed_out", got, count)
		}
		fs.EachRecord(func(r *kgo.Record) { got = append(got, fmt.Sprintf("%s@%d", r.Value, r.Timestamp.UnixMilli())) })
	}
	sort.Strings(got)
	return fmt.Sprint(got)
}
