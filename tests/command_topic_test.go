package tests

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	be "encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Issue 16 points 1–3 and issue 19 part 2: the command topic under
// hostile or lost input, through the binary.

// TestReplayedCommandRejected is issue 16.1: an old signed DROP STREAM x
// DELETE TOPIC, appended again with a raw producer after x was created
// again, is refused and logged by the running server and by a restart;
// x and its data survive.
func TestReplayedCommandRejected(t *testing.T) {
	t.Parallel()
	const topic = "_default__command_topic"
	n := startNode(t)
	n.mustKsql("CREATE STREAM x (v INT) WITH (KAFKA_TOPIC='x', VALUE_FORMAT='JSON', PARTITIONS=1);")
	n.mustKsql("DROP STREAM x DELETE TOPIC;")
	drop := commandRecord(t, n.Kafka, topic, "DROP STREAM x DELETE TOPIC")
	n.mustKsql("CREATE STREAM x (v INT) WITH (KAFKA_TOPIC='x', VALUE_FORMAT='JSON', PARTITIONS=1);")
	n.mustKsql("INSERT INTO x (v) VALUES (42);")
	consume(t, n.Kafka, "x", 1)

	copied := &kgo.Record{Topic: topic, Partition: 0, Key: drop.Key, Value: drop.Value, Headers: drop.Headers}
	cl := kafkaClient(t, n.Kafka, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err := cl.ProduceSync(timeoutCtx(t), copied).FirstErr(); err != nil {
		t.Fatal(err)
	}
	rejected := regexp.MustCompile(fmt.Sprintf(`msg="rejecting a command record: it is not executed".*offset=%d .*not the next record in sequence`, copied.Offset))
	awaitLog(t, n, rejected)
	n.mustKsql("DESCRIBE x;")
	n.mustKsql("INSERT INTO x (v) VALUES (43);")
	if got := consume(t, n.Kafka, "x", 2); len(got) != 2 {
		t.Fatalf("x after the copied DROP: %v", got)
	}

	n.restart()
	awaitLog(t, n, rejected)
	n.mustKsql("DESCRIBE x;")
	if got := consume(t, n.Kafka, "x", 2); !strings.Contains(strings.Join(got, " "), `"V":42`) {
		t.Fatalf("x's data after a restart: %v", got)
	}
}

// commandRecord returns the command topic's record whose statement
// contains sql.
func commandRecord(t *testing.T, kafka, topic, sql string) *kgo.Record {
	t.Helper()
	cl := kafkaClient(t, kafka, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	ctx := timeoutCtx(t)
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("no command %q in %s", sql, topic)
		}
		var found *kgo.Record
		fs.EachRecord(func(r *kgo.Record) {
			if found == nil && bytes.Contains(r.Value, []byte(sql)) {
				found = r
			}
		})
		if found != nil {
			return found
		}
	}
}

// awaitLog waits until n has logged a line matching re.
func awaitLog(t *testing.T, n *node, re *regexp.Regexp) {
	t.Helper()
	deadline := time.Now().Add(startTimeout)
	for !re.MatchString(n.Logs()) {
		if time.Now().After(deadline) {
			t.Fatalf("no log line %s:\n%s", re, n.Logs())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTornCommandRecord is issue 16.2: the last command record torn on
// disk after a clean stop (the broker's snapshot still counts it, so its
// end offset is past the last record it serves) no longer hangs the
// start: the read ends at an empty fetch once the last stable offset is
// at that end, the server starts, /healthcheck answers (start waits for
// it, within startTimeout) and it runs statements. A statement run after
// that start is kept: the broker ends the transaction whose marker was
// torn with an abort marker before the server connects, so the server's
// next commit (same transactional id) is not hidden from its next start,
// whether that start follows a clean stop or a kill.
func TestTornCommandRecord(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	n.mustKsql("CREATE STREAM a (v INT) WITH (KAFKA_TOPIC='a', VALUE_FORMAT='JSON', PARTITIONS=1);")
	n.mustKsql("CREATE STREAM b (v INT) WITH (KAFKA_TOPIC='b', VALUE_FORMAT='JSON', PARTITIONS=1);")
	n.stop()
	tearLastBatch(t, filepath.Join(n.dataDir, "broker", "partitions", "_default__command_topic-0"))
	n.start()
	n.mustKsql("DESCRIBE a;")
	n.mustKsql("CREATE STREAM c (v INT) WITH (KAFKA_TOPIC='c', VALUE_FORMAT='JSON', PARTITIONS=1);")
	n.mustKsql("DESCRIBE c;")
	n.stop()
	n.start()
	n.mustKsql("DESCRIBE a;")
	n.mustKsql("DESCRIBE c;")
	n.mustKsql("CREATE STREAM d (v INT) WITH (KAFKA_TOPIC='d', VALUE_FORMAT='JSON', PARTITIONS=1);")
	n.kill()
	n.start()
	n.mustKsql("DESCRIBE c;")
	n.mustKsql("DESCRIBE d;")
}

// tearLastBatch cuts the last record batch of the last segment of a
// partition directory in half, as a crash in its write would: in the
// command topic, the commit marker of the last command.
func tearLastBatch(t *testing.T, dir string) {
	t.Helper()
	segs, err := filepath.Glob(filepath.Join(dir, "*.dat"))
	if err != nil || len(segs) == 0 {
		t.Fatalf("no segment in %s: %v", dir, err)
	}
	seg := segs[len(segs)-1]
	raw, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	last := 0
	for p := 0; p+12 <= len(raw); p += 12 + int(be.BigEndian.Uint32(raw[p+8:p+12])) {
		last = p
	}
	if err := os.Truncate(seg, int64(last+(len(raw)-last)/2)); err != nil {
		t.Fatal(err)
	}
}

// TestCommandReadBounded is the bound of issue 16.2: a transaction a
// client leaves open in the command topic makes the start fail within
// sqlstream.command.topic.replay.timeout.ms, saying what holds it and
// what to do; once it is aborted the server starts.
func TestCommandReadBounded(t *testing.T) {
	t.Parallel()
	br := startBrokerProcess(t)
	const topic = "_open__command_topic"
	createTopic(t, br.Kafka, topic, 1)
	txn := kafkaClient(t, br.Kafka, kgo.TransactionalID("someone-else"), kgo.TransactionTimeout(10*time.Minute))
	if err := txn.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := txn.ProduceSync(timeoutCtx(t), &kgo.Record{Topic: topic, Value: []byte("{}")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := writeConfig(t, "sqlstream.command.topic.replay.timeout.ms=3000\n")
	code, out, errOut := runBinary(t, "server", "--listen", "127.0.0.1:0", "--bootstrap-servers", br.Kafka,
		"--data-dir", dir, "--service-id", "open_", "--config", cfg)
	if code == 0 || !strings.Contains(errOut+out, "did not reach its end offset") ||
		!strings.Contains(errOut+out, "sqlstream.command.topic.replay.timeout.ms") {
		t.Fatalf("start over an open transaction: exit %d\n%s%s", code, out, errOut)
	}
	if err := txn.EndTransaction(timeoutCtx(t), kgo.TryAbort); err != nil {
		t.Fatal(err)
	}
	n := startNodeArgs(t, dir, "--listen", "127.0.0.1:0", "--bootstrap-servers", br.Kafka,
		"--data-dir", dir, "--service-id", "open_", "--config", cfg)
	n.mustKsql("SHOW STREAMS;")
}

// TestUnverifiableCommandTopic is issue 16.3: a lost key file, and a
// server with another sqlstream.command.topic.secret, over a command
// topic with signed records, exit non-zero at start saying what to do,
// and write no key; with the key restored the server starts with its
// streams.
func TestUnverifiableCommandTopic(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	n.mustKsql("CREATE STREAM kept (v INT) WITH (KAFKA_TOPIC='kept', VALUE_FORMAT='JSON', PARTITIONS=1);")
	n.stop()
	keyPath := filepath.Join(n.dataDir, "command-topic.key")
	key, err := os.ReadFile(keyPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(keyPath); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runBinary(t, n.args...)
	if code == 0 || !strings.Contains(out+errOut, "restore command-topic.key from a backup") ||
		!strings.Contains(out+errOut, "sqlstream.command.topic.secret") {
		t.Fatalf("start without the key file: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(keyPath); err == nil {
		t.Fatalf("a new key file was written over a signed command topic")
	}

	other := append(append([]string(nil), n.args...), "--config", writeConfig(t, "sqlstream.command.topic.secret=another-secret-of-servers\n"))
	code, out, errOut = runBinary(t, other...)
	if code == 0 || !regexp.MustCompile(`holds \d+ signed records and none verifies`).MatchString(out+errOut) {
		t.Fatalf("start with another secret: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(keyPath); err == nil {
		t.Fatalf("a key file was written")
	}

	if err := os.WriteFile(keyPath, key, 0o600); err != nil {
		t.Fatal(err)
	}
	n.start()
	n.mustKsql("DESCRIBE kept;")
}

// TestCopiesOfOneServiceID is issue 19.2: copies of a server started with
// one --service-id and no shared secret refuse to start, naming the
// setting, and write no key; the first keeps serving. (With the secret,
// TestServersShareOneCatalog shows them running each other's statements.)
func TestCopiesOfOneServiceID(t *testing.T) {
	t.Parallel()
	br := startBrokerProcess(t)
	first := startServerOn(t, br.Kafka, "--service-id", "copies_")
	for i := 2; i <= 3; i++ {
		dir := t.TempDir()
		code, out, errOut := runBinary(t, "server", "--listen", "127.0.0.1:0", "--bootstrap-servers", br.Kafka,
			"--data-dir", dir, "--service-id", "copies_")
		if code == 0 || !strings.Contains(out+errOut, "set sqlstream.command.topic.secret in every server's config file") {
			t.Fatalf("copy %d: exit %d\n%s%s", i, code, out, errOut)
		}
		if _, err := os.Stat(filepath.Join(dir, "command-topic.key")); err == nil {
			t.Fatalf("copy %d wrote a key file", i)
		}
	}
	first.mustKsql("CREATE STREAM s (v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);")
	first.restart()
	first.mustKsql("DESCRIBE s;")
}

// TestPreviousReleaseCommandTopic: a command topic the release before the
// command chain wrote (records signed over topic, key and value only)
// still runs, as the prefix before the chain start the first start
// appends; a copy of one of its records appended after that is refused.
func TestPreviousReleaseCommandTopic(t *testing.T) {
	t.Parallel()
	const topic, secret = "_old__command_topic", "the secret of the old service"
	br := startBrokerProcess(t)
	createTopic(t, br.Kafka, topic, 1)
	old := formatOneRecord(topic, secret, "0", `{"seq":0,"statement":"CREATE STREAM old (v INT) WITH (KAFKA_TOPIC='old', VALUE_FORMAT='JSON', PARTITIONS=1);"}`)
	cl := kafkaClient(t, br.Kafka)
	if err := cl.ProduceSync(timeoutCtx(t), old).FirstErr(); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, "sqlstream.command.topic.secret="+secret+"\n")
	n := startServerOn(t, br.Kafka, "--service-id", "old_", "--config", cfg)
	n.mustKsql("DROP STREAM old;")
	copied := formatOneRecord(topic, secret, "0", string(old.Value))
	if err := cl.ProduceSync(timeoutCtx(t), copied).FirstErr(); err != nil {
		t.Fatal(err)
	}
	refused := regexp.MustCompile(fmt.Sprintf(`rejecting a command record: it is not executed.*offset=%d .*earlier release's format after the command chain started`, copied.Offset))
	awaitLog(t, n, refused)
	n.restart()
	awaitLog(t, n, refused)
	if status, body := n.ksql("DESCRIBE old;", nil); status == 200 {
		t.Fatalf("the copied command of the earlier format ran: %v", body)
	}
}

// formatOneRecord is a command record as the release before the chain
// signed it: HMAC-SHA256 over topic, key and value, each prefixed by its
// length, hex in the sqlstream-signature header.
func formatOneRecord(topic, secret, key, value string) *kgo.Record {
	m := hmac.New(sha256.New, []byte(secret))
	for _, part := range []string{topic, key, value} {
		fmt.Fprintf(m, "%d:%s", len(part), part)
	}
	return &kgo.Record{Topic: topic, Key: []byte(key), Value: []byte(value),
		Headers: []kgo.RecordHeader{{Key: "sqlstream-signature", Value: []byte(hex.EncodeToString(m.Sum(nil)))}}}
}
