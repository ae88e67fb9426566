package runtime_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sqlstream/sqlstream/runtime"
)

// renewedLine is what a standby feeder logs when it starts a replica
// again from its checkpoint after the state DB was reopened
// (exec/standby_retry.go).
const renewedLine = "restoring again from its checkpoint after local state was reopened"

// TestStandbyRenewedAfterReopen (issue 16, point 7): B keeps the only
// standby of A's one task, its state DB on a file system that is made to
// refuse writes (ENOSPC) while the changelog moves on. B's DB fails, its
// recovery loop reopens it once writes are taken again, and what the
// replica applied since its last durable write is lost with the reopen
// (state.IsLostWithReopen): the feeder starts it again from its
// checkpoint instead of retrying a lost restorer for ever, catches up
// to the end of A's changelog, and a pull query B answers from the
// replica has every count.
func TestStandbyRenewedAfterReopen(t *testing.T) {
	r := &rig{t: t, dir: t.TempDir()}
	r.startBroker()
	p := &pair{rig: r}
	p.a = p.engine("a")
	t.Cleanup(func() {
		p.a.Close()
		if p.b != nil {
			p.b.Close()
		}
		r.b.Close()
	})
	execOn(t, p.a, "CREATE STREAM S (K STRING KEY, V INT) WITH (KAFKA_TOPIC='s', PARTITIONS=1, VALUE_FORMAT='JSON');", nil)
	execOn(t, p.a, `SET 'num.standby.replicas'='1'; SET 'auto.offset.reset'='earliest';
	  CREATE TABLE C WITH (KAFKA_TOPIC='c') AS SELECT K, COUNT(*) AS N FROM S GROUP BY K;`, nil)
	want := map[string]int{}
	produce := func(from, n int) {
		var recs []*kgo.Record
		for i := from; i < from+n; i++ {
			k := fmt.Sprintf("k%02d", i%20)
			want[k]++
			recs = append(recs, &kgo.Record{Topic: "s", Key: []byte(k), Value: fmt.Appendf(nil, `{"V":%d}`, i)})
		}
		r.produceAll(recs...)
	}
	produce(0, 200)

	var full atomic.Bool
	fs := errorfs.Wrap(vfs.Default, errorfs.InjectorFunc(func(op errorfs.Op) error {
		if full.Load() && op.Kind.ReadOrWrite() == errorfs.OpIsWrite {
			return syscall.ENOSPC
		}
		return nil
	}))
	logs := &syncBuffer{}
	p.b = p.engine("b", runtime.WithStateFS(fs),
		runtime.WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))

	changelog := changelogOf(t, r)
	caughtUp := func() bool {
		rb, ok := roles(p.b)
		end := endOffset(t, r, changelog)
		return ok && rb == "0_0:STANDBY" && end > 0 && standbyPositions(p.b)["0_0"] == end
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("B's log:\n%s", logs.String())
		}
	})
	eventually(t, "B's standby of 0_0 caught up with A's changelog", caughtUp)
	if ra, _ := roles(p.a); ra != "0_0:ACTIVE:RUNNING" {
		t.Fatalf("A's tasks: %q, want 0_0 active", ra)
	}

	// B's disk is full while the changelog moves on: the replica's next
	// commit fails, and with it B's state DB.
	full.Store(true)
	produce(200, 200)
	eventually(t, "B's state DB failed on the full disk", func() bool { return p.b.StorageFailure() != nil })
	full.Store(false)

	eventually(t, "B's state reopened and its standby renewed and caught up", func() bool {
		return p.b.StorageFailure() == nil && strings.Contains(logs.String(), renewedLine) && caughtUp()
	})
	produce(400, 100)
	eventually(t, "B's standby caught up with the records after the reopen", caughtUp)

	got := map[string]int{}
	for _, row := range pullRows(t, p.b, "SELECT K, N FROM C;") {
		var k string
		var n int
		if _, err := fmt.Sscanf(strings.Trim(row, "[]"), "%s %d", &k, &n); err != nil {
			t.Fatalf("row %q: %v", row, err)
		}
		got[k] = n
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("pull query on B (its standby): %v\nwant %v\nB's log:\n%s", got, want, logs.String())
	}
}

// changelogOf is the name of the one changelog topic on r's broker.
func changelogOf(t *testing.T, r *rig) string {
	t.Helper()
	topics, err := r.admin().ListTopics(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range topics.Names() {
		if strings.HasSuffix(n, "-changelog") {
			return n
		}
	}
	t.Fatalf("no changelog topic among %v", topics.Names())
	return ""
}

// endOffset is the end offset of partition 0 of topic (-1 on an error).
func endOffset(t *testing.T, r *rig, topic string) int64 {
	t.Helper()
	ends, err := r.admin().ListEndOffsets(context.Background(), topic)
	if err != nil {
		return -1
	}
	o, ok := ends.Lookup(topic, 0)
	if !ok || o.Err != nil {
		return -1
	}
	return o.Offset
}

// pullRows runs a pull query on e and renders each row.
func pullRows(t *testing.T, e *runtime.Engine, sql string) []string {
	t.Helper()
	rs, err := e.Query(context.Background(), sql, nil, nil)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rs.Close()
	var out []string
	for {
		row, err := rs.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: after %v: %v", sql, out, err)
		}
		out = append(out, rowText(row))
	}
}

// syncBuffer is a bytes.Buffer safe for the engine's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
