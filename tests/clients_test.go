package tests

import (
	"bytes"
	"context"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/internal/testutil"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// clientTimeout bounds every Kafka client call and kcat run in the tests.
const clientTimeout = 30 * time.Second

func timeoutCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	t.Cleanup(cancel)
	return ctx
}

func kafkaClient(t *testing.T, addr string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addr)}, opts...)...)
	if err != nil {
		t.Fatalf("kafka client for %s: %v", addr, err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// createTopic creates topic with parts partitions through the admin API.
func createTopic(t *testing.T, addr, topic string, parts int32) {
	t.Helper()
	resp, err := kadm.NewClient(kafkaClient(t, addr)).CreateTopic(timeoutCtx(t), parts, 1, nil, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatalf("create topic %s: %v", topic, err)
	}
}

// produce writes key/value pairs (kvs alternate key, value) to topic with
// franz-go and waits for each to be acknowledged.
func produce(t *testing.T, addr, topic string, kvs ...string) {
	t.Helper()
	cl := kafkaClient(t, addr)
	for i := 0; i+1 < len(kvs); i += 2 {
		r := &kgo.Record{Topic: topic, Key: []byte(kvs[i]), Value: []byte(kvs[i+1])}
		if err := cl.ProduceSync(timeoutCtx(t), r).FirstErr(); err != nil {
			t.Fatalf("produce to %s: %v", topic, err)
		}
	}
}

// consume reads n records of topic from the beginning with franz-go and
// returns them as sorted "key=value" strings (partitions interleave).
func consume(t *testing.T, addr, topic string, n int) []string {
	t.Helper()
	cl := kafkaClient(t, addr, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx := timeoutCtx(t)
	var got []string
	for len(got) < n {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("consumed %d of %d records from %s: %v", len(got), n, topic, got)
		}
		fs.EachRecord(func(r *kgo.Record) { got = append(got, string(r.Key)+"="+string(r.Value)) })
	}
	sort.Strings(got)
	return got
}

// kcatPath returns the kcat binary or skips the test: CI installs kcat,
// a developer machine may not have it.
func kcatPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("kcat")
	if err != nil {
		t.Skip("kcat not installed (apt-get install kcat); .ci/run installs it")
	}
	return p
}

func runKcat(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(timeoutCtx(t), kcatPath(t), args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("kcat %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String()
}

// kcatProduce writes "key:value" lines to topic as README shows:
// kcat -b ADDR -P -t TOPIC -K:
func kcatProduce(t *testing.T, addr, topic string, lines ...string) {
	t.Helper()
	runKcat(t, strings.Join(lines, "\n")+"\n", "-b", addr, "-P", "-t", topic, "-K:")
}

// kcatConsume reads n records of topic from the beginning and returns them
// as sorted "key=value" strings.
func kcatConsume(t *testing.T, addr, topic string, n int) []string {
	t.Helper()
	out := runKcat(t, "", "-b", addr, "-C", "-t", topic, "-o", "beginning", "-e", "-q",
		"-c", strconv.Itoa(n), "-f", "%k=%s\n")
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if out == "" {
		got = nil
	}
	sort.Strings(got)
	return got
}

// kcatConsumeWait polls with kcat until topic holds at least n records, for
// records a persistent query writes asynchronously.
func kcatConsumeWait(t *testing.T, addr, topic string, n int) []string {
	t.Helper()
	deadline := time.Now().Add(clientTimeout)
	for {
		got := kcatConsume(t, addr, topic, n)
		if len(got) >= n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// awaitQueriesCommitted waits until every persistent query's group of
// the server at addr (default_query_…) has committed every record
// produced to topics so far, and to the internal topics it reads
// (testutil.WaitCommitted): a restart then reads none of them again.
func awaitQueriesCommitted(t *testing.T, addr string, topics ...string) {
	t.Helper()
	adm := kadm.NewClient(kafkaClient(t, addr))
	ctx := timeoutCtx(t)
	groups, err := adm.ListGroups(ctx)
	if err != nil {
		t.Fatalf("list groups: %v", err)
	}
	n := 0
	for _, g := range groups.Groups() {
		if !strings.HasPrefix(g, "default_query_") {
			continue
		}
		n++
		if err := testutil.WaitCommitted(ctx, adm, g, topics...); err != nil {
			t.Fatal(err)
		}
	}
	if n == 0 {
		t.Fatalf("no persistent query group at %s to wait for", addr)
	}
}
