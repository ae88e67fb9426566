package proclog

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/exec"
)

// gatedCluster is a Kafka-like (asynchronous) cluster whose Produce
// waits for open to close, fails the values in fail, and keeps the rest.
// Only what the log calls is implemented.
type gatedCluster struct {
	exec.Cluster
	started chan struct{} // a Produce began (cap 1)
	open    chan struct{}
	fail    func(value []byte) bool
	mu      sync.Mutex
	written [][]byte
}

func (c *gatedCluster) Synchronous() bool                                 { return false }
func (c *gatedCluster) CreateTopic(context.Context, exec.TopicSpec) error { return nil }

func (c *gatedCluster) Produce(_ context.Context, recs ...*physical.OutRecord) error {
	select {
	case c.started <- struct{}{}:
	default:
	}
	<-c.open
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range recs {
		if c.fail(r.Value) {
			return errors.New("broker says no")
		}
		c.written = append(c.written, r.Value)
	}
	return nil
}

// lostReports are the ENTRIES_LOST entries written, by query.
func (c *gatedCluster) lostReports(t *testing.T) map[string][]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string][]string{}
	for _, b := range c.written {
		var v logEntry
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		if v.Message.Type == LostType {
			out[v.Message.QueryID] = append(out[v.Message.QueryID], v.Message.ErrorMessage)
		}
	}
	return out
}

// TestLostEntriesAreReported: entries the full queue refuses and an
// entry whose write fails are counted lost for their queries (Lost), and
// once the log writes again an ENTRIES_LOST entry for each query says
// how many and why; the other entries are all written.
func TestLostEntriesAreReported(t *testing.T) {
	c := &gatedCluster{started: make(chan struct{}, 1), open: make(chan struct{}),
		fail: func(v []byte) bool { return strings.Contains(string(v), "poison") }}
	l := New(c, slog.New(slog.DiscardHandler), "log")
	if err := l.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	entry := func(msg string) *physical.LogEntry { return &physical.LogEntry{Topic: "in", Message: msg} }
	l.LogFor("Q1", entry("first"))
	<-c.started // the writer holds the first entry; the queue is empty
	for range cap(l.ch) {
		l.LogFor("Q1", entry("queued"))
	}
	l.LogFor("Q1", entry("refused"))
	l.LogFor("Q2", entry("refused"))
	l.LogFor("Q2", entry("refused"))
	if a, b := l.Lost("Q1"), l.Lost("Q2"); a != 1 || b != 2 {
		t.Fatalf("lost while the queue was full: Q1 %d, Q2 %d; want 1 and 2", a, b)
	}
	close(c.open)
	l.Close() // writes what was queued, and the reports after the first write
	reports := c.lostReports(t)
	if len(reports["Q1"]) != 1 || !strings.HasPrefix(reports["Q1"][0], "1 processing-log entries of query Q1 were lost (the last because the processing log's queue was full)") ||
		len(reports["Q2"]) != 1 || !strings.HasPrefix(reports["Q2"][0], "2 processing-log entries of query Q2") {
		t.Fatalf("reports: %q", reports)
	}
	if n := len(c.written); n != 1+cap(l.ch)+2 {
		t.Fatalf("%d records written, want every accepted entry and two reports (%d)", n, 1+cap(l.ch)+2)
	}

	// A failed write is lost too, and reported after the next write.
	c2 := &gatedCluster{started: make(chan struct{}, 1), open: make(chan struct{}), fail: c.fail}
	close(c2.open)
	l2 := New(c2, slog.New(slog.DiscardHandler), "log")
	if err := l2.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	l2.LogFor("Q3", entry("poison"))
	l2.LogFor("Q3", entry("fine"))
	l2.Close()
	if r := c2.lostReports(t)["Q3"]; len(r) != 1 || !strings.Contains(r[0], "1 processing-log entries of query Q3 were lost (the last because its write failed: broker says no)") || l2.Lost("Q3") != 1 {
		t.Fatalf("after a failed write: lost %d, reports %q", l2.Lost("Q3"), r)
	}
}
