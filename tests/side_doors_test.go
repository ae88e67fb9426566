package tests

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// TestPeerReplayRefused is issue 16.11 through the binary: a heartbeat
// signed with the service's shared secret is accepted once; the same
// request sent again within the signature's window is refused as a
// replay, and the server keeps answering.
func TestPeerReplayRefused(t *testing.T) {
	t.Parallel()
	n := startNode(t, "--config", writeConfig(t, scaleoutConfig))
	body, err := json.Marshal(map[string]any{"hostInfo": map[string]any{"host": "127.0.0.1", "port": 1}, "timestamp": time.Now().UnixMilli()})
	if err != nil {
		t.Fatal(err)
	}
	sig := peerSignature("shared-secret-of-this-service", "POST", "/heartbeat", body)
	send := func() (int, string) {
		req, err := http.NewRequest("POST", n.URL+"/heartbeat", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Sqlstream-Peer", sig)
		resp, err := httpClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, b := send(); status != http.StatusOK {
		t.Fatalf("first heartbeat: %d %s", status, b)
	}
	if status, b := send(); status != http.StatusBadRequest || !strings.Contains(b, "replayed") {
		t.Fatalf("replayed heartbeat: %d %s, want 400 naming the replay", status, b)
	}
	n.mustKsql("SHOW STREAMS;")
}

// peerSignature is the X-Sqlstream-Peer value a server of the service
// whose command-topic secret is secret signs a request with
// (runtime/peer/auth.go): time, nonce and an HMAC over both, the method,
// the path and the body's SHA-256, keyed by a key derived from the secret.
func peerSignature(secret, method, path string, body []byte) string {
	k := hmac.New(sha256.New, []byte(secret))
	k.Write([]byte("sqlstream inter-node requests v1"))
	at, nonce := strconv.FormatInt(time.Now().UnixMilli(), 10), "test-nonce-"+strconv.FormatInt(time.Now().UnixNano(), 36)
	sum := sha256.Sum256(body)
	m := hmac.New(sha256.New, k.Sum(nil))
	m.Write([]byte(method + "\n" + path + "\n" + at + "\n" + nonce + "\n" + hex.EncodeToString(sum[:])))
	return at + ":" + nonce + ":" + hex.EncodeToString(m.Sum(nil))
}

// TestDeletedBrokerDataRefused is issue 16.13 through the binary: a
// partition directory or the groups.log of the embedded broker deleted
// while the server was stopped makes the next start fail naming it
// (instead of loading the partition empty and the offsets reset, which
// counts records twice); recreated empty, the server starts and answers.
func TestDeletedBrokerDataRefused(t *testing.T) {
	t.Parallel()
	n := startNode(t, "--config", writeConfig(t, "ksql.streams.commit.interval.ms=100\n"))
	n.mustKsql(`CREATE STREAM lost (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='lost', VALUE_FORMAT='JSON', PARTITIONS=2);`)
	n.mustKsql(`INSERT INTO lost (k, v) VALUES ('a', 1);`)
	for _, gone := range []string{filepath.Join("partitions", "lost-1"), "groups.log"} {
		n.stop()
		path := filepath.Join(n.dataDir, "broker", gone)
		if err := os.RemoveAll(path); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runBinary(t, n.args...)
		if code == 0 || !strings.Contains(out+errOut, path) || !strings.Contains(out+errOut, "restore them from a backup") {
			t.Fatalf("start with %s deleted: exit %d\n%s\n%s", gone, code, out, errOut)
		}
		if gone == "groups.log" {
			err := os.WriteFile(path, nil, 0o644)
			if err != nil {
				t.Fatal(err)
			}
		} else if err := os.Mkdir(path, 0o755); err != nil {
			t.Fatal(err)
		}
		n.start()
		n.mustKsql("DESCRIBE lost;")
	}
}

// TestBrokerSideDoorClosed is issue 16.4 through the binary: with
// authentication.method=BASIC the embedded broker refuses an anonymous
// Kafka client and a wrong password, serves an API user over SASL/PLAIN
// (as `kcat -X sasl.mechanisms=PLAIN` would) and SCRAM, but that user can
// neither write nor delete the command topic or a query's changelog, nor
// commit for the query's consumer group;
// the engine itself (its own internal user) runs the query, /healthcheck
// stays green and the catalog survives a restart.
func TestBrokerSideDoorClosed(t *testing.T) {
	t.Parallel()
	users := filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(users, []byte("alice: wonderland,admin\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	n := startNode(t, "--config", writeConfig(t, "authentication.method=BASIC\nauthentication.roles=admin\n"+
		"sqlstream.authentication.users.file="+users+"\nksql.streams.commit.interval.ms=100\n"))
	ksql := func(sql string) {
		t.Helper()
		req := n.newRequest(context.Background(), "/ksql", "application/json", map[string]any{"ksql": sql})
		req.SetBasicAuth("alice", "wonderland")
		resp, err := httpClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", sql, resp.StatusCode, b)
		}
	}
	ksql(`CREATE STREAM door (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='door', VALUE_FORMAT='JSON', PARTITIONS=1);
	CREATE TABLE door_counts AS SELECT k, COUNT(*) AS n FROM door GROUP BY k;`)

	listTopics := func(opts ...kgo.Opt) (kadm.TopicDetails, error) {
		cl := kafkaClient(t, n.Kafka, append([]kgo.Opt{kgo.RequestRetries(0)}, opts...)...)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return kadm.NewClient(cl).ListTopics(ctx)
	}
	if _, err := listTopics(); err == nil {
		t.Error("an anonymous Kafka client listed the topics")
	}
	if _, err := listTopics(kgo.SASL(plain.Auth{User: "alice", Pass: "nope"}.AsMechanism())); err == nil {
		t.Error("a wrong password listed the topics")
	}
	alicePlain := kgo.SASL(plain.Auth{User: "alice", Pass: "wonderland"}.AsMechanism())
	if _, err := listTopics(kgo.SASL(scram.Auth{User: "alice", Pass: "wonderland"}.AsSha512Mechanism())); err != nil {
		t.Errorf("alice with SCRAM-SHA-512: %v", err)
	}
	topics, err := listTopics(alicePlain)
	if err != nil {
		t.Fatalf("alice with PLAIN: %v", err)
	}
	var changelog string
	for name := range topics {
		if strings.HasSuffix(name, "-changelog") {
			changelog = name
		}
	}
	if changelog == "" {
		t.Fatalf("no changelog among %v", topics.Names())
	}
	alice := kafkaClient(t, n.Kafka, alicePlain, kgo.RequestRetries(0), kgo.RecordDeliveryTimeout(10*time.Second))
	produceOne := func(topic string) error {
		return alice.ProduceSync(timeoutCtx(t), &kgo.Record{Topic: topic, Key: []byte("a"), Value: []byte(`{"V":1}`)}).FirstErr()
	}
	for _, topic := range []string{"_default__command_topic", changelog} {
		if err := produceOne(topic); !errors.Is(err, kerr.TopicAuthorizationFailed) {
			t.Errorf("alice writes %s: %v, want TOPIC_AUTHORIZATION_FAILED", topic, err)
		}
		resp, err := kadm.NewClient(alice).DeleteTopics(timeoutCtx(t), topic)
		if err == nil {
			err = resp[topic].Err
		}
		if err == nil {
			t.Errorf("alice deleted %s", topic)
		}
	}
	if err := produceOne("door"); err != nil {
		t.Fatalf("alice writes her stream's topic: %v", err)
	}
	group := strings.TrimSuffix(changelog, changelog[strings.Index(changelog, "-"):]) // the query's application id
	commit, err := kadm.NewClient(alice).CommitOffsets(timeoutCtx(t), group, kadm.Offsets{"door": {0: {Topic: "door", At: 0}}})
	if err == nil {
		err = commit.Error()
	}
	if !errors.Is(err, kerr.GroupAuthorizationFailed) {
		t.Errorf("alice commits for the query's group %s: %v, want GROUP_AUTHORIZATION_FAILED", group, err)
	}
	if kcat, err := exec.LookPath("kcat"); err == nil {
		out, err := exec.Command(kcat, "-b", n.Kafka, "-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=PLAIN",
			"-X", "sasl.username=alice", "-X", "sasl.password=wonderland", "-L").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "door") {
			t.Errorf("kcat -L as alice: %v\n%s", err, out)
		}
	}
	eventually(t, "the count of alice's record", func() error {
		rows, err := pullRowsAs(n, "SELECT * FROM door_counts;", "alice", "wonderland")
		if err != nil {
			return err
		}
		if fmt.Sprint(rows) != "[[a 1]]" {
			return fmt.Errorf("door_counts holds %v, want [[a 1]]", rows)
		}
		return nil
	})
	n.restart()
	ksql("DESCRIBE door_counts;")
	if strings.Contains(n.Logs(), "beyond loopback without authentication") {
		t.Errorf("warned of an unauthenticated broker with authentication on:\n%s", n.Logs())
	}
}

// TestBrokerBeyondLoopbackWarns is issue 16.4's listener through the
// binary: --broker-listen 0.0.0.0 without authentication logs an error
// naming the address really bound (not the 127.0.0.1 it advertises).
func TestBrokerBeyondLoopbackWarns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	n := startNodeArgs(t, dir, "--listen", "127.0.0.1:0", "--broker-listen", "0.0.0.0:0", "--data-dir", dir)
	_, port, err := net.SplitHostPort(n.Kafka)
	if err != nil {
		t.Fatal(err)
	}
	// Go binds 0.0.0.0 dual-stack and reports it as [::].
	bound := regexp.MustCompile(`level=ERROR msg="the embedded kafka broker listens beyond loopback without authentication.*listen=(0\.0\.0\.0|\[::\]):` + port)
	if !bound.MatchString(n.Logs()) {
		t.Errorf("no error naming the address bound (all interfaces, port %s):\n%s", port, n.Logs())
	}
	n.mustKsql("SHOW STREAMS;")
}

// TestCommandTopicUndeletable is issue 16.4's default setup through the
// binary: on the loopback broker without authentication a Kafka client
// still cannot delete the command topic (which left /healthcheck green and
// the next start empty); /healthcheck reports the command runner healthy
// and a restart keeps the catalog.
func TestCommandTopicUndeletable(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	n.mustKsql(`CREATE STREAM keep (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='keep', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	resp, err := kadm.NewClient(kafkaClient(t, n.Kafka)).DeleteTopics(timeoutCtx(t), "_default__command_topic")
	if err != nil {
		t.Fatal(err)
	}
	if r := resp["_default__command_topic"]; !errors.Is(r.Err, kerr.PolicyViolation) || !strings.Contains(r.ErrMessage, "command topic") {
		t.Fatalf("deleting the command topic: %v %s, want POLICY_VIOLATION", r.Err, r.ErrMessage)
	}
	status, body := n.get("/healthcheck")
	if status != http.StatusOK || !strings.Contains(string(body), `"commandRunner":{"isHealthy":true}`) {
		t.Fatalf("/healthcheck: %d %s", status, body)
	}
	n.restart()
	n.mustKsql("DESCRIBE keep;")
}

// TestBrokerProcessAuthenticates: `sqlstream broker` with
// authentication.method=BASIC in its config takes SASL from those users
// and refuses anonymous clients, and a server connecting as a user
// (security.protocol=SASL_PLAINTEXT) runs statements on it.
func TestBrokerProcessAuthenticates(t *testing.T) {
	t.Parallel()
	users := filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(users, []byte("alice: wonderland,admin\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	br := startBrokerProcess(t, "--config", writeConfig(t, "authentication.method=BASIC\nsqlstream.authentication.users.file="+users+"\n"))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := kadm.NewClient(kafkaClient(t, br.Kafka, kgo.RequestRetries(0))).ListTopics(ctx); err == nil {
		t.Error("an anonymous client listed the standalone broker's topics")
	}
	srv := startServerOn(t, br.Kafka, "--config", writeConfig(t, "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"+
		`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="wonderland";`+"\n"))
	srv.mustKsql(`CREATE STREAM far (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='far', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	srv.mustKsql(`INSERT INTO far (k, v) VALUES ('a', 1);`)
	cl := kafkaClient(t, br.Kafka, kgo.SASL(plain.Auth{User: "alice", Pass: "wonderland"}.AsMechanism()),
		kgo.ConsumeTopics("far"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	fetches := cl.PollRecords(timeoutCtx(t), 1)
	if err := fetches.Err0(); err != nil || fetches.NumRecords() != 1 || string(fetches.Records()[0].Value) != `{"V":1}` {
		t.Fatalf("far as alice: %v %v", err, fetches.Records())
	}
}
