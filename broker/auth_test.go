package broker

import (
	"context"
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

func md5Cred(password string) string {
	sum := md5.Sum([]byte(password))
	return "MD5:" + hex.EncodeToString(sum[:])
}

// canList reports whether a client with opts lists the topics, within a
// bound: a refused client never gets an answer.
func canList(t *testing.T, b *Broker, opts ...kgo.Opt) error {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(b.Addrs()...), kgo.RequestRetries(0)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = kadm.NewClient(cl).ListTopics(ctx)
	return err
}

// TestUsersAuthenticate is issue 16.4's broker side: with WithUsers an
// anonymous client and a wrong password are refused; a user of the users
// file gets in with SASL/PLAIN (plain or MD5 credential) or SCRAM (plain
// credential), and so does the broker's internal user.
func TestUsersAuthenticate(t *testing.T) {
	b := startTest(t, WithUsers(map[string]string{"alice": "wonderland", "bob": md5Cred("builder")}))
	mech := func(m sasl.Mechanism) kgo.Opt { return kgo.SASL(m) }
	for name, c := range map[string]struct {
		opts []kgo.Opt
		ok   bool
	}{
		"anonymous":      {nil, false},
		"wrong password": {[]kgo.Opt{mech(plain.Auth{User: "alice", Pass: "nope"}.AsMechanism())}, false},
		"unknown user":   {[]kgo.Opt{mech(plain.Auth{User: "eve", Pass: "wonderland"}.AsMechanism())}, false},
		"PLAIN":          {[]kgo.Opt{mech(plain.Auth{User: "alice", Pass: "wonderland"}.AsMechanism())}, true},
		"PLAIN, MD5":     {[]kgo.Opt{mech(plain.Auth{User: "bob", Pass: "builder"}.AsMechanism())}, true},
		"SCRAM-SHA-256":  {[]kgo.Opt{mech(scram.Auth{User: "alice", Pass: "wonderland"}.AsSha256Mechanism())}, true},
		"SCRAM-SHA-512":  {[]kgo.Opt{mech(scram.Auth{User: "alice", Pass: "wonderland"}.AsSha512Mechanism())}, true},
		"SCRAM, wrong":   {[]kgo.Opt{mech(scram.Auth{User: "alice", Pass: "nope"}.AsSha256Mechanism())}, false},
		"internal":       {b.ClientOpts()[1:], true},
	} {
		if err := canList(t, b, c.opts...); (err == nil) != c.ok {
			t.Errorf("%s: %v, want ok=%v", name, err, c.ok)
		}
	}
}

// TestProtectedTopics: a user may not read, write or delete a protected
// topic, nor commit for a protected group or open a protected
// transactional id (the internal user may, and the user still may her
// own), and no client at all may delete a command topic or _schemas.
func TestProtectedTopics(t *testing.T) {
	b := startTest(t, WithUsers(map[string]string{"alice": "wonderland"}),
		WithProtected(Protected{Topics: []string{"_svc__command_topic"}, TransactionalIDs: []string{"svc_"}, Prefixes: []string{"svc_query_"}}))
	internal := newClient(t, b, b.ClientOpts()[1:]...)
	for _, topic := range []string{"_svc__command_topic", "svc_query_CTAS_1-agg-changelog", "users_topic"} {
		createTopic(t, internal, topic, 1, nil)
	}
	alice := newClient(t, b, kgo.SASL(plain.Auth{User: "alice", Pass: "wonderland"}.AsMechanism()), kgo.RequestRetries(0),
		kgo.ProducerBatchMaxBytes(1<<16), kgo.RecordDeliveryTimeout(5*time.Second))
	adm := kadm.NewClient(alice)
	for _, topic := range []string{"_svc__command_topic", "svc_query_CTAS_1-agg-changelog"} {
		err := alice.ProduceSync(testCtx(t), &kgo.Record{Topic: topic, Value: []byte("forged")}).FirstErr()
		if !errors.Is(err, kerr.TopicAuthorizationFailed) {
			t.Errorf("alice writes %s: %v, want TOPIC_AUTHORIZATION_FAILED", topic, err)
		}
		if err := deleteTopic(t, adm, topic); err == nil {
			t.Errorf("alice deleted %s", topic)
		}
	}
	produce(t, alice, "users_topic", "k", "v")
	for group, want := range map[string]error{"svc_query_CTAS_1": kerr.GroupAuthorizationFailed, "alices_group": nil} {
		resp, err := adm.CommitOffsets(testCtx(t), group, kadm.Offsets{"users_topic": {0: {Topic: "users_topic", At: 1}}})
		if err == nil {
			err = resp.Error()
		}
		if !errors.Is(err, want) {
			t.Errorf("alice commits for group %s: %v, want %v", group, err, want)
		}
	}
	for id, want := range map[string]error{"svc_": kerr.TransactionalIDAuthorizationFailed,
		"svc_query_CTAS_1-1": kerr.TransactionalIDAuthorizationFailed, "alices_txn": nil} {
		req := kmsg.NewPtrInitProducerIDRequest()
		req.TransactionalID, req.TransactionTimeoutMillis = kmsg.StringPtr(id), 10000
		resp, err := req.RequestWith(testCtx(t), alice)
		if err == nil {
			err = kerr.ErrorForCode(resp.ErrorCode)
		}
		if !errors.Is(err, want) {
			t.Errorf("alice opens transactional id %s: %v, want %v", id, err, want)
		}
	}
	if err := deleteTopic(t, adm, "users_topic"); err != nil {
		t.Errorf("alice deletes her own topic: %v", err)
	}
	if err := deleteTopic(t, kadm.NewClient(internal), "svc_query_CTAS_1-agg-changelog"); err != nil {
		t.Errorf("the internal user deletes a changelog: %v", err)
	}
	err := deleteTopic(t, kadm.NewClient(internal), "_svc__command_topic")
	if !errors.Is(err, kerr.PolicyViolation) || !strings.Contains(err.Error(), "command topic") {
		t.Errorf("the internal user deletes the command topic: %v, want POLICY_VIOLATION", err)
	}
}

// TestCommandTopicUndeletableWithoutAuth: without authentication (the
// loopback default) a client cannot delete a command topic or _schemas
// either, by name or by topic id, nor cut a command topic's records,
// while other topics go.
func TestCommandTopicUndeletableWithoutAuth(t *testing.T) {
	b := startTest(t)
	cl := newClient(t, b)
	for _, topic := range []string{"_default__command_topic", "_schemas", "plain"} {
		createTopic(t, cl, topic, 1, nil)
	}
	adm := kadm.NewClient(cl)
	for _, topic := range []string{"_default__command_topic", "_schemas"} {
		if err := deleteTopic(t, adm, topic); !errors.Is(err, kerr.PolicyViolation) {
			t.Errorf("delete %s: %v, want POLICY_VIOLATION", topic, err)
		}
	}
	td, err := adm.ListTopics(testCtx(t), "_schemas")
	if err != nil {
		t.Fatal(err)
	}
	req := kmsg.NewPtrDeleteTopicsRequest()
	rt := kmsg.NewDeleteTopicsRequestTopic()
	rt.TopicID = td["_schemas"].ID
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(testCtx(t), cl)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Topics) != 1 || resp.Topics[0].ErrorCode != kerr.PolicyViolation.Code {
		t.Errorf("delete _schemas by id: %+v, want POLICY_VIOLATION", resp.Topics)
	}
	produce(t, cl, "_default__command_topic", "k", "v")
	cut, err := adm.DeleteRecords(testCtx(t), kadm.Offsets{"_default__command_topic": {0: {Topic: "_default__command_topic", At: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := cut.Lookup("_default__command_topic", 0); !ok || !errors.Is(r.Err, kerr.PolicyViolation) {
		t.Errorf("DeleteRecords of the command topic: %+v, want POLICY_VIOLATION", r)
	}
	produce(t, cl, "plain", "k", "v")
	cut, err = adm.DeleteRecords(testCtx(t), kadm.Offsets{"plain": {0: {Topic: "plain", At: 1}}})
	if r, ok := cut.Lookup("plain", 0); err != nil || !ok || r.Err != nil || r.LowWatermark != 1 {
		t.Errorf("DeleteRecords of plain: %+v %v, want the records cut to 1", r, err)
	}
	if err := deleteTopic(t, adm, "plain"); err != nil {
		t.Errorf("delete plain: %v", err)
	}
	assertTopic(t, adm, "_default__command_topic", 1)
}

// TestUsersFileIsTheOnlySource: credentials are not carried over a
// restart: a user removed from the users file is refused next time.
func TestUsersFileIsTheOnlySource(t *testing.T) {
	dir := t.TempDir()
	b := startTest(t, WithDataDir(dir), WithUsers(map[string]string{"alice": "wonderland"}))
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	b2 := startTest(t, WithDataDir(dir), WithUsers(map[string]string{"bob": "builder"}))
	if err := canList(t, b2, kgo.SASL(scram.Auth{User: "alice", Pass: "wonderland"}.AsSha256Mechanism())); err == nil {
		t.Error("alice, removed from the users file, still authenticates with SCRAM")
	}
	if err := canList(t, b2, kgo.SASL(plain.Auth{User: "bob", Pass: "builder"}.AsMechanism())); err != nil {
		t.Errorf("bob: %v", err)
	}
	if err := canList(t, b2, b2.ClientOpts()[1:]...); err != nil {
		t.Errorf("internal user after restart: %v", err)
	}
}

func deleteTopic(t *testing.T, adm *kadm.Client, topic string) error {
	t.Helper()
	resp, err := adm.DeleteTopics(testCtx(t), topic)
	if err != nil {
		return err
	}
	r, err := resp.On(topic, nil)
	if err != nil {
		return err
	}
	if r.Err != nil && r.ErrMessage != "" {
		return errors.Join(r.Err, errors.New(r.ErrMessage))
	}
	return r.Err
}

// TestOldLibrdkafkaAuthenticates: ApiVersions up to v3 advertises
// SaslHandshake from v0, so librdkafka before 2.10 (Debian's kcat) finds
// a handshake and logs in as a user; v4 and up are kfake's own table.
// With kcat installed, it lists the topics as alice.
func TestOldLibrdkafkaAuthenticates(t *testing.T) {
	b := startTest(t, WithUsers(map[string]string{"alice": "wonderland"}))
	for _, v := range []int16{0, 3, 4} {
		min := int16(-1)
		for _, k := range rawAPIVersions(t, b.Addrs()[0], v).ApiKeys {
			if k.ApiKey == int16(kmsg.SASLHandshake) {
				min = k.MinVersion
			}
		}
		if want := map[bool]int16{true: 0, false: 1}[v <= 3]; min != want {
			t.Errorf("ApiVersions v%d: SaslHandshake from v%d, want v%d", v, min, want)
		}
	}
	kcat, err := exec.LookPath("kcat")
	if err != nil {
		t.Log("kcat not installed: the librdkafka login is not exercised")
		return
	}
	out, err := exec.Command(kcat, "-b", b.Addrs()[0], "-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=PLAIN",
		"-X", "sasl.username=alice", "-X", "sasl.password=wonderland", "-m", "10", "-L").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "broker") {
		t.Errorf("kcat -L as alice: %v\n%s", err, out)
	}
	out, err = exec.Command(kcat, "-b", b.Addrs()[0], "-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=PLAIN",
		"-X", "sasl.username=alice", "-X", "sasl.password=nope", "-m", "3", "-L").CombinedOutput()
	if err == nil {
		t.Errorf("kcat -L with a wrong password listed:\n%s", out)
	}
}

// rawAPIVersions sends one ApiVersions request of version v on a new
// connection (kgo answers its own ApiVersions from what it negotiated).
func rawAPIVersions(t *testing.T, addr string, v int16) *kmsg.ApiVersionsResponse {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version, req.ClientSoftwareName, req.ClientSoftwareVersion = v, "test", "1"
	client := "test"
	if _, err := conn.Write(kmsg.NewRequestFormatter(kmsg.FormatterClientID(client)).AppendRequest(nil, req, 1)); err != nil {
		t.Fatal(err)
	}
	var size [4]byte
	if _, err := io.ReadFull(conn, size[:]); err != nil {
		t.Fatal(err)
	}
	body := make([]byte, binary.BigEndian.Uint32(size[:]))
	if _, err := io.ReadFull(conn, body); err != nil {
		t.Fatal(err)
	}
	resp := req.ResponseKind().(*kmsg.ApiVersionsResponse)
	if err := resp.ReadFrom(body[4:]); err != nil { // past the correlation id; ApiVersions responses have no tagged header
		t.Fatalf("ApiVersions v%d response: %v", v, err)
	}
	return resp
}
