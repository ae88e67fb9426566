package broker

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestIllegalTopicNamesRejected: CreateTopics from any client refuses
// names Kafka refuses, and a request with one creates nothing.
func TestIllegalTopicNamesRejected(t *testing.T) {
	b := startTest(t)
	adm := kadm.NewClient(newClient(t, b))
	long := strings.Repeat("t", 260)
	resp, err := adm.CreateTopics(testCtx(t), 1, 1, nil, long, "fine")
	if err != nil {
		t.Fatal(err)
	}
	if r := resp[long]; !errors.Is(r.Err, kerr.InvalidTopicException) || !strings.Contains(r.ErrMessage, "maximum is 249") {
		t.Errorf("260-character name: err %v %q, want INVALID_TOPIC_EXCEPTION naming the limit", r.Err, r.ErrMessage)
	}
	if r := resp["fine"]; !errors.Is(r.Err, kerr.InvalidRequest) {
		t.Errorf("legal name in the same request: err %v, want INVALID_REQUEST (nothing created)", r.Err)
	}
	for _, name := range []string{"..", "a b", "x/y"} {
		r, err := adm.CreateTopic(testCtx(t), 1, 1, nil, name)
		if err == nil {
			err = r.Err
		}
		if !errors.Is(err, kerr.InvalidTopicException) {
			t.Errorf("create %q: %v, want INVALID_TOPIC_EXCEPTION", name, err)
		}
	}
	createTopic(t, newClient(t, b), strings.Repeat("t", 249), 1, nil)
	td, err := adm.ListTopics(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := td["fine"]; ok {
		t.Errorf("topic fine was created by a rejected request")
	}
}

// TestDataDirWithUnloadableTopicStarts: a data directory whose topics.json
// names a topic that cannot be loaded (written by an older version that
// accepted any name) still starts: that topic is skipped and logged, the
// other topics keep their records, and the original file is kept.
func TestDataDirWithUnloadableTopicStarts(t *testing.T) {
	dir := t.TempDir()
	b := startTest(t, WithDataDir(dir))
	cl := newClient(t, b)
	createTopic(t, cl, "events", 1, nil)
	produce(t, cl, "events", "a", "1")
	cl.Close()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("t", 300)
	addTopicEntry(t, filepath.Join(dir, "topics.json"), long)

	var logs bytes.Buffer
	b2 := startTest(t, WithDataDir(dir), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	events := newClient(t, b2, kgo.ConsumeTopics("events"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if got := consume(t, events, 1); fmt.Sprint(got) != "[a=1]" {
		t.Fatalf("events after restart: %v", got)
	}
	if !strings.Contains(logs.String(), "skipping a topic of the data directory") || !strings.Contains(logs.String(), "maximum is 249") {
		t.Errorf("skip not logged: %s", logs.String())
	}
	if saved, err := os.ReadFile(filepath.Join(dir, "topics.json.skipped")); err != nil || !strings.Contains(string(saved), long) {
		t.Errorf("original topics.json not kept: %v", err)
	}
}

// addTopicEntry appends a topic entry with name to kfake's topics.json.
func addTopicEntry(t *testing.T, path, name string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	entry := fmt.Sprintf(`{"name":%q,"id":"Gn3Hh8vXD1jg2ZOU0v3Qzg==","partitions":1,"replicas":1},`, name)
	s := strings.Replace(string(raw), `"topics":[`, `"topics":[`+entry, 1)
	if s == string(raw) {
		t.Fatalf("no topics list in %s: %s", path, raw)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
