package runtime_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/runtime"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
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

// TestPushFetchRetry: a fetch error the client gives up on (kgo retries
// most itself; UNKNOWN_TOPIC_ID, a topic moving to another id, reaches
// the poll after five in a row) is retried by the push runner (exec's
// kafkaPush.loop), and the query keeps delivering: the row produced
// during the fault arrives after it. More than five failed polls in a
// row end the query with the retriable class and what to do.
func TestPushFetchRetry(t *testing.T) {
	var log syncBuffer
	f := newFaultRig(t, runtime.WithLogger(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	f.exec(`CREATE STREAM s (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	f.produce("s", "a", `{"V":1}`)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rows, err := f.e.Query(ctx, "SELECT k, v FROM s EMIT CHANGES;", map[string]any{"auto.offset.reset": "earliest"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if row, err := rows.Next(ctx); err != nil || fmt.Sprint(row.Values) != "[a 1]" {
		t.Fatalf("first row %v, %v", row, err)
	}
	failed := f.failFetches("s", 8)
	f.produce("s", "b", `{"V":2}`)
	if row, err := rows.Next(ctx); err != nil || fmt.Sprint(row.Values) != "[b 2]" {
		t.Fatalf("after the fetch errors: row %v, %v (%d fetches failed)", row, err, failed.Load())
	}
	if n := failed.Load(); n != 8 {
		t.Fatalf("%d fetches failed, want 8", n)
	}
	if !strings.Contains(log.String(), "push query: fetch error; retrying") || !strings.Contains(log.String(), "UNKNOWN_TOPIC_ID") {
		t.Fatalf("the push runner did not retry a fetch error; log:\n%s", log.String())
	}

	failed = f.failFetches("s", 1000)
	f.produce("s", "c", `{"V":3}`)
	row, err := rows.Next(ctx)
	if err == nil || ctx.Err() != nil {
		t.Fatalf("with fetches failing for good the query returned %v, %v; want its error", row, err)
	}
	for _, want := range []string{"UNKNOWN_TOPIC_ID", "retriable", "at most 5 recoveries in a row", "send the query again"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("push query error %q does not say %q", err, want)
		}
	}
}

// failFetches answers the next n fetch requests that name topic with
// UNKNOWN_TOPIC_ID for its partitions and no fetch session. While it is
// armed, a request of an established session (which names only the
// partitions that changed) is answered FETCH_SESSION_ID_NOT_FOUND, so
// the client sends a full one: every client recovers from that at once.
func (f *faultRig) failFetches(topic string, n int) *atomic.Int64 {
	f.t.Helper()
	td, err := f.adm.ListTopics(context.Background(), topic)
	if err != nil || td.Error() != nil {
		f.t.Fatalf("%s: %v %v", topic, err, td.Error())
	}
	id := td[topic].ID
	var failed atomic.Int64
	f.c.ControlKey(int16(kmsg.Fetch), func(kr kmsg.Request) (kmsg.Response, error, bool) {
		if failed.Load() >= int64(n) {
			return nil, nil, false
		}
		f.c.KeepControl()
		req := kr.(*kmsg.FetchRequest)
		resp := req.ResponseKind().(*kmsg.FetchResponse)
		names := slices.ContainsFunc(req.Topics, func(t kmsg.FetchRequestTopic) bool { return t.TopicID == id || t.Topic == topic })
		switch {
		case names:
			failed.Add(1)
			for _, t := range req.Topics {
				rt := kmsg.NewFetchResponseTopic()
				rt.Topic, rt.TopicID = t.Topic, t.TopicID
				for _, p := range t.Partitions {
					rp := kmsg.NewFetchResponseTopicPartition()
					rp.Partition, rp.ErrorCode = p.Partition, kerr.UnknownTopicID.Code
					rt.Partitions = append(rt.Partitions, rp)
				}
				resp.Topics = append(resp.Topics, rt)
			}
		case req.SessionEpoch > 0:
			resp.ErrorCode, resp.SessionID = kerr.FetchSessionIDNotFound.Code, req.SessionID
		default:
			return nil, nil, false
		}
		return resp, nil, true
	})
	return &failed
}
