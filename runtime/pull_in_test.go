package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// pullKeys is the table size and the IN list length of the pull query
// benchmark and test.
const pullKeys = 10_000

// pullRig is a rig whose table T holds pullKeys rows k0…k9999 (V = i),
// materialized for pull queries.
func pullRig(tb testing.TB) *rig {
	r := newRig(tb)
	r.exec(`CREATE TABLE src (id VARCHAR PRIMARY KEY, v INT) WITH (KAFKA_TOPIC='src', VALUE_FORMAT='JSON', PARTITIONS=4);
	SET 'auto.offset.reset'='earliest';
	CREATE TABLE t AS SELECT * FROM src;`)
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.b.Addrs()...))
	if err != nil {
		tb.Fatal(err)
	}
	defer cl.Close()
	recs := make([]*kgo.Record, 0, pullKeys)
	for i := range pullKeys {
		recs = append(recs, &kgo.Record{Topic: "src", Key: []byte(fmt.Sprintf("k%d", i)), Value: []byte(fmt.Sprintf(`{"V":%d}`, i))})
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		tb.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for pullCount(tb, r, "SELECT * FROM t;") < pullKeys {
		if time.Now().After(deadline) {
			tb.Fatalf("table T not materialized")
		}
		time.Sleep(200 * time.Millisecond)
	}
	return r
}

// inQuery selects n keys of T, every other one absent (k0, x1, k2, …).
func inQuery(n int) string {
	keys := make([]string, n)
	for i := range keys {
		prefix := "k"
		if i%2 == 1 {
			prefix = "x"
		}
		keys[i] = fmt.Sprintf("'%s%d'", prefix, i)
	}
	return "SELECT * FROM t WHERE id IN (" + strings.Join(keys, ", ") + ");"
}

func pullCount(tb testing.TB, r *rig, sql string) int {
	tb.Helper()
	ctx := context.Background()
	rs, err := r.e.Query(ctx, sql, nil, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer rs.Close()
	n := 0
	for {
		_, err := rs.Next(ctx)
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			tb.Fatal(err)
		}
		n++
	}
}

// TestPullIn: WHERE key IN (…) returns exactly the listed keys present.
func TestPullIn(t *testing.T) {
	r := pullRig(t)
	if n := pullCount(t, r, inQuery(pullKeys)); n != pullKeys/2 {
		t.Fatalf("IN of %d keys, half present: %d rows, want %d", pullKeys, n, pullKeys/2)
	}
	if n := pullCount(t, r, "SELECT * FROM t WHERE id IN ('k1', 'k1', 'nope', 'k9999');"); n != 2 {
		t.Fatalf("IN with a duplicate and an absent key: %d rows, want 2", n)
	}
}

// BenchmarkPullIn10000Keys is issue 9.9: a pull query with a 10,000-key
// IN list over a 10,000-row table, against a full scan of it.
func BenchmarkPullIn10000Keys(b *testing.B) {
	r := pullRig(b)
	in := inQuery(pullKeys)
	b.Run("in", func(b *testing.B) {
		for range b.N {
			pullCount(b, r, in)
		}
	})
	b.Run("scan", func(b *testing.B) {
		for range b.N {
			pullCount(b, r, "SELECT * FROM t;")
		}
	})
}
