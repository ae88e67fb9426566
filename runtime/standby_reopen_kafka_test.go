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

// TestStandbyRenewedAfterReopen (issue 16, point 7): of two engines on
// one broker, one runs the only task of a count and the other keeps its
// standby, each engine's state DB (Pebble on the real disk) behind a file
// system a test can make refuse writes (ENOSPC). The standby's disk
// refuses writes while the changelog moves on: its state DB fails, the
// engine's recovery loop reopens it once writes are taken again, and
// what the replica applied since its last durable write is lost with
// the reopen (state.IsLostWithReopen). The feeder starts the replica
// again from its checkpoint (its log says so) instead of retrying a lost
// restorer for ever, catches up to the end offset of the changelog, and
// a pull query that engine answers from the replica has every count.
func TestStandbyRenewedAfterReopen(t *testing.T) {
	t.Parallel()
	r := &rig{t: t, dir: t.TempDir()}
	r.startBroker()
	p := &pair{rig: r}
	a, b := newFaultyDisk(), newFaultyDisk()
	p.a = p.engine("a", a.options()...)
	p.b = p.engine("b", b.options()...)
	t.Cleanup(func() {
		p.a.Close()
		p.b.Close()
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
	// counted waits until the active task wrote every count produced so
	// far (sink and changelog are written at the same flush), so that
	// the changelog's end offset is one a replica must reach.
	counted := func() {
		t.Helper()
		eventually(t, "the sink holds every count", func() bool { return fmt.Sprint(p.latestCounts("c")) == fmt.Sprint(want) })
	}
	produce(0, 200)
	counted()

	changelog := changelogOf(t, r)
	// caughtUp reports whether e keeps the standby of 0_0 at the
	// changelog's end (what it committed, so what a pull query reads),
	// and the other engine runs 0_0.
	caughtUp := func(e, other *runtime.Engine) bool {
		re, ok := roles(e)
		ro, _ := roles(other)
		end := endOffset(t, r, changelog)
		return ok && re == "0_0:STANDBY" && ro == "0_0:ACTIVE:RUNNING" && end > 0 && standbyPositions(e)["0_0"] == end
	}
	var standby, active *runtime.Engine
	var disk *faultyDisk
	eventually(t, "one engine runs 0_0, the other's standby caught up with the changelog", func() bool {
		switch {
		case caughtUp(p.a, p.b):
			standby, active, disk = p.a, p.b, a
		case caughtUp(p.b, p.a):
			standby, active, disk = p.b, p.a, b
		}
		return standby != nil
	})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the standby engine's log:\n%s", disk.logs.String())
		}
	})

	// The standby's disk is full while the changelog moves on: the
	// replica's next commit fails, and with it its engine's state DB.
	disk.full.Store(true)
	produce(200, 200)
	eventually(t, "the standby engine's state DB failed on the full disk", func() bool { return standby.StorageFailure() != nil })
	disk.full.Store(false)
	counted()

	eventually(t, "the state DB reopened, the standby renewed and caught up", func() bool {
		return standby.StorageFailure() == nil && strings.Contains(disk.logs.String(), renewedLine) && caughtUp(standby, active)
	})
	produce(400, 100)
	counted()
	eventually(t, "the standby caught up with the records after the reopen", func() bool { return caughtUp(standby, active) })

	got := map[string]int{}
	for _, row := range pullRows(t, standby, "SELECT K, N FROM C;") {
		var k string
		var n int
		if _, err := fmt.Sscanf(strings.Trim(row, "[]"), "%s %d", &k, &n); err != nil {
			t.Fatalf("row %q: %v", row, err)
		}
		got[k] = n
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("pull query answered from the standby: %v\nwant %v", got, want)
	}
}

// faultyDisk is an engine's state directory behind a file system whose
// writes fail with ENOSPC while full is set, and the engine's log.
type faultyDisk struct {
	full atomic.Bool
	fs   vfs.FS
	logs *syncBuffer
}

func newFaultyDisk() *faultyDisk {
	d := &faultyDisk{logs: &syncBuffer{}}
	d.fs = errorfs.Wrap(vfs.Default, errorfs.InjectorFunc(func(op errorfs.Op) error {
		if d.full.Load() && op.Kind.ReadOrWrite() == errorfs.OpIsWrite {
			return syscall.ENOSPC
		}
		return nil
	}))
	return d
}

// options makes an engine use the disk and log to d.logs.
func (d *faultyDisk) options() []runtime.Option {
	return []runtime.Option{runtime.WithStateFS(d.fs),
		runtime.WithLogger(slog.New(slog.NewTextHandler(d.logs, &slog.HandlerOptions{Level: slog.LevelInfo})))}
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
