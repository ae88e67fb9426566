package broker

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestMissingDataRefused is issue 16.13: after a clean shutdown, a deleted
// partition directory or groups.log stops Start with an error naming it
// (kfake would load the partition empty from offset 0 and forget the
// committed offsets); recreating it empty is the way to start without
// that data, and the broker then serves the other partition's records. A
// deleted topics.json beside partition directories is refused too.
func TestMissingDataRefused(t *testing.T) {
	for _, lost := range []string{"partitions/events-1", "groups.log", "topics.json"} {
		t.Run(lost, func(t *testing.T) {
			dir := t.TempDir()
			b := startTest(t, WithDataDir(dir))
			cl := newClient(t, b)
			createTopic(t, cl, "events", 2, nil)
			produce(t, cl, "events", "a", "1")
			cl.Close()
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, lost)
			if err := os.RemoveAll(path); err != nil {
				t.Fatal(err)
			}
			if _, err := Start(WithListen("127.0.0.1:0"), WithDataDir(dir)); err == nil || !strings.Contains(err.Error(), path) {
				t.Fatalf("Start with %s deleted: %v, want an error naming it", lost, err)
			}
			if lost == "topics.json" {
				return // nothing but a backup brings its topics back
			}
			if lost == "groups.log" {
				err := os.WriteFile(path, nil, 0o644)
				if err != nil {
					t.Fatal(err)
				}
			} else if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
			b2 := startTest(t, WithDataDir(dir))
			reader := newClient(t, b2, kgo.ConsumeTopics("events"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
			if got := consume(t, reader, 1); len(got) != 1 || got[0] != "a=1" {
				t.Fatalf("after recreating %s: read %v, want [a=1]", lost, got)
			}
		})
	}
}

// TestMissingDataAfterCrashWarns: after an unclean shutdown a partition
// never written has no directory yet, so a missing one is logged, not
// refused.
func TestMissingDataAfterCrashWarns(t *testing.T) {
	dir := t.TempDir()
	b := startTest(t, WithDataDir(dir))
	cl := newClient(t, b)
	createTopic(t, cl, "events", 2, nil)
	cl.Close()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := markRunning(dir); err != nil { // as a SIGKILL leaves it
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "session_state.json")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "partitions", "events-1")); err != nil {
		t.Fatal(err)
	}
	var logs strings.Builder
	startTest(t, WithDataDir(dir), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	if !strings.Contains(logs.String(), "events-1") || !strings.Contains(logs.String(), "unclean shutdown") {
		t.Fatalf("no warning naming the missing partition:\n%s", logs.String())
	}
}
