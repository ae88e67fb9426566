package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// produceAborted writes key=value to topic in a transaction it aborts.
func (r *rig) produceAborted(topic, key, value string) {
	r.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.b.Addrs()...), kgo.TransactionalID("aborter"))
	if err != nil {
		r.t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := cl.BeginTransaction(); err != nil {
		r.t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Key: []byte(key), Value: []byte(value)}).FirstErr(); err != nil {
		r.t.Fatal(err)
	}
	if err := cl.EndTransaction(ctx, kgo.TryAbort); err != nil {
		r.t.Fatal(err)
	}
}

// rows runs a query to its end and renders each row (a PRINT line or
// the values).
func (r *rig) rows(sql string) []string {
	r.t.Helper()
	out, err := r.queryRows(sql)
	if err != nil {
		r.t.Fatalf("%s: after %v: %v", sql, out, err)
	}
	return out
}

func (r *rig) queryRows(sql string) ([]string, error) {
	rs, err := r.e.Query(context.Background(), sql, map[string]any{"auto.offset.reset": "earliest"}, nil)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out []string
	for {
		row, err := rs.Next(ctx)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, rowText(row))
	}
}

func rowText(row api.Row) string {
	if row.Line != "" {
		return row.Line
	}
	return fmt.Sprint(row.Values)
}

// TestAbortedWritesAreNeverRead: records of an aborted transaction on a
// source topic reach neither PRINT, nor a push query, nor a pull query
// over the stream, and a topic that ends with a transaction marker is
// still read to its end.
func TestAbortedWritesAreNeverRead(t *testing.T) {
	r := newRig(t)
	r.exec(`CREATE STREAM src (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='src', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	r.produceAborted("src", "gone", `{"V":1}`)
	r.produce("src", "ok", `{"V":2}`)
	r.produceAborted("src", "gone", `{"V":3}`) // the log ends with an abort marker

	printed := r.rows(`PRINT 'src' FROM BEGINNING LIMIT 1;`)
	if len(printed) != 1 || !strings.Contains(printed[0], "key: ok, value: {\"V\":2}") {
		t.Fatalf("PRINT: %q", printed)
	}
	if got := r.rows(`SELECT k, v FROM src EMIT CHANGES LIMIT 1;`); fmt.Sprint(got) != "[[ok 2]]" {
		t.Fatalf("push query: %q", got)
	}
	if got := r.rows(`SELECT k, v FROM src;`); fmt.Sprint(got) != "[[ok 2]]" {
		t.Fatalf("pull query over the stream: %q", got)
	}
}

// TestStreamScanWaitsForOpenTransaction: a pull query over a stream whose
// last record belongs to an open transaction waits for its end, and ends
// when it aborts (only the abort marker follows the end it started with).
func TestStreamScanWaitsForOpenTransaction(t *testing.T) {
	r := newRig(t)
	r.exec(`CREATE STREAM src (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='src', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	r.produce("src", "ok", `{"V":2}`)
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.b.Addrs()...), kgo.TransactionalID("open"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "src", Key: []byte("gone"), Value: []byte(`{"V":3}`)}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	type result struct {
		rows []string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		rows, err := r.queryRows(`SELECT k, v FROM src;`)
		done <- result{rows, err}
	}()
	select {
	case res := <-done:
		t.Fatalf("the scan ended with a transaction open: %v %v", res.rows, res.err)
	case <-time.After(500 * time.Millisecond):
	}
	if err := cl.EndTransaction(ctx, kgo.TryAbort); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res.err != nil || fmt.Sprint(res.rows) != "[[ok 2]]" {
		t.Fatalf("scan after the abort: %v %v", res.rows, res.err)
	}
}

// TestStreamScanOfEmptiedTopic: a pull query over a stream whose records
// were all deleted (end offset past 0, no records) ends at once.
func TestStreamScanOfEmptiedTopic(t *testing.T) {
	r := newRig(t)
	r.exec(`CREATE STREAM src (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='src', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	r.produce("src", "ok", `{"V":2}`)
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.b.Addrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var all kadm.Offsets
	all.AddOffset("src", 0, 1, -1)
	deleted, err := kadm.NewClient(cl).DeleteRecords(context.Background(), all)
	if err == nil {
		err = deleted.Error()
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := r.rows(`SELECT k, v FROM src;`); len(got) != 0 {
		t.Fatalf("scan of an emptied topic: %q", got)
	}
}
