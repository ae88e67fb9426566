package runtime_test

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestPushQueryErrorIsClassified: an error that ends a push query on
// Kafka (a record it must throw on, under ksql.timestamp.throw.on.invalid)
// reaches the client with its class and what to do, as a persistent
// query's failure does, not as the bare error.
func TestPushQueryErrorIsClassified(t *testing.T) {
	f := newFaultRig(t)
	f.exec(`CREATE STREAM s (k VARCHAR KEY, ts VARCHAR) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1,
	    TIMESTAMP='ts', TIMESTAMP_FORMAT='yyyy-MM-dd');`)
	f.produce("s", "a", `{"TS":"not a date"}`)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rows, err := f.e.Query(ctx, "SELECT k, ts FROM s EMIT CHANGES;",
		map[string]any{"auto.offset.reset": "earliest", "ksql.timestamp.throw.on.invalid": "true"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	row, err := rows.Next(ctx)
	if err == nil || ctx.Err() != nil {
		t.Fatalf("the push query returned %v, %v; want its error", row, err)
	}
	for _, want := range []string{"TimestampExtractor", "fatal user error", "'ksql.timestamp.throw.on.invalid'='false'", "send the query again"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("push query error %q does not say %q", err, want)
		}
	}
}
