package runtime_test

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestFinalCommitRefusedIsReported: an at_least_once query whose last
// commit, as the server stops, is refused by the group coordinator says
// so (the runner's Stop error, which the engine logs with the offsets
// left behind; the runner also adds it to the query's errors) instead of
// a warning lost among periodic ones, and its next start resumes from
// the offsets last committed: the record whose commit was refused is
// processed again, none is lost.
func TestFinalCommitRefusedIsReported(t *testing.T) {
	t.Parallel()
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	var refuse atomic.Bool
	c.ControlKey(int16(kmsg.OffsetCommit), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if !refuse.Load() {
			return nil, nil, false
		}
		return refusedCommit(req.(*kmsg.OffsetCommitRequest)), nil, true
	})
	dir, logs := t.TempDir(), &syncBuffer{}
	start := func() *runtime.Engine {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		e, err := runtime.New(ctx, runtime.WithBootstrap(c.ListenAddrs()), runtime.WithDataDir(dir),
			runtime.WithProperties(map[string]string{props.CommitInterval: "100", props.OffsetReset: "earliest"}),
			runtime.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	f := &faultRig{t: t, c: c, e: start(), cl: cl, adm: kadm.NewClient(cl)}
	f.exec(`CREATE STREAM src (id VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='src', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	out := f.exec(`CREATE STREAM copy AS SELECT * FROM src;`)
	app := "default_query_" + *out[0].(api.CommandStatusEntity).CommandStatus.QueryID
	f.produce("src", "a", `{"V":1}`)
	awaitFact(t, "src@1 committed", func() bool { return committedAt(f.adm, app, "src") == 1 })

	refuse.Store(true)
	f.produce("src", "b", `{"V":2}`)
	awaitFact(t, "b copied", func() bool { return len(readAll(t, cl, "COPY")) == 2 })
	f.e.Close()
	if log := logs.String(); !strings.Contains(log, "last commit failed") || !strings.Contains(log, "src[0]@2") ||
		!strings.Contains(log, "query stopped with an error") {
		t.Fatalf("the refused last commit is not reported with its offsets:\n%s", log)
	}
	if at := committedAt(f.adm, app, "src"); at != 1 {
		t.Fatalf("committed src@%d, want 1 (the last commit was refused)", at)
	}

	refuse.Store(false)
	f.e = start()
	defer f.e.Close()
	awaitFact(t, "src@2 committed after the restart", func() bool { return committedAt(f.adm, app, "src") == 2 })
	var keys []string
	for _, r := range readAll(t, cl, "COPY") {
		keys = append(keys, string(r.Key))
	}
	if strings.Join(keys, ",") != "a,b,b" {
		t.Fatalf("COPY has %v, want a, b and b again (processed anew from the last commit)", keys)
	}
}

// refusedCommit answers every partition of an offset commit with
// TOPIC_AUTHORIZATION_FAILED (not retriable).
func refusedCommit(req *kmsg.OffsetCommitRequest) *kmsg.OffsetCommitResponse {
	resp := req.ResponseKind().(*kmsg.OffsetCommitResponse)
	resp.Version = req.Version
	for _, t := range req.Topics {
		rt := kmsg.NewOffsetCommitResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewOffsetCommitResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, kerr.TopicAuthorizationFailed.Code
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

// committedAt is group's committed offset of topic's partition 0 (-1:
// none).
func committedAt(adm *kadm.Client, group, topic string) int64 {
	offs, err := adm.FetchOffsets(context.Background(), group)
	if err != nil {
		return -1
	}
	o, ok := offs.Lookup(topic, 0)
	if !ok {
		return -1
	}
	return o.At
}

// readAll reads topic from its start to its end offsets.
func readAll(t *testing.T, cl *kgo.Client, topic string) []*kgo.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err != nil {
		return nil
	}
	end, ok := ends.Lookup(topic, 0)
	if !ok || end.Offset == 0 {
		return nil
	}
	rd, err := kgo.NewClient(kgo.SeedBrokers(cl.OptValue(kgo.SeedBrokers).([]string)...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().AtStart()}}))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var out []*kgo.Record
	for int64(len(out)) < end.Offset && ctx.Err() == nil {
		out = append(out, rd.PollFetches(ctx).Records()...)
	}
	return out
}
