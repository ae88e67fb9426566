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
	rs, err := r.e.Query(context.Background(), sql, map[string]any{"auto.offset.reset": "earliest"}, nil)
	if err != nil {
		r.t.Fatalf("%s: %v", sql, err)
	}
	defer rs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out []string
	for {
		row, err := rs.Next(ctx)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			r.t.Fatalf("%s: after %v: %v", sql, out, err)
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
