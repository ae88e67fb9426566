package schemaregistry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
)

// TestReplayKeepsIdsAndVersions: a registry started on the same topic
// later finds every id, version, deletion and level the first one wrote.
func TestReplayKeepsIdsAndVersions(t *testing.T) {
	ctx := context.Background()
	g := newRig(t)
	a := g.start("")
	mustCreate(t, a, "r-value", avroSchema(avroV1))
	mustCreate(t, a, "r-value", avroSchema(avroV2))
	p := mustCreate(t, a, "p-value", sr.Schema{Schema: protoV1, Type: sr.TypeProtobuf})
	mustCreate(t, a, "gone", avroSchema(`"string"`))
	if _, err := a.cl.DeleteSubject(ctx, "gone", sr.SoftDelete); err != nil {
		t.Fatal(err)
	}
	a.cl.SetCompatibility(ctx, sr.SetCompatibility{Level: sr.CompatFull}, "r-value")
	a.reg.Close()

	b := g.start("")
	if got, err := b.cl.SchemaByVersion(ctx, "r-value", 2); err != nil || got.ID != 2 || got.Schema.Schema != avroV2 {
		t.Fatalf("after replay: %+v %v", got, err)
	}
	if got, err := b.cl.SchemaByID(ctx, p.ID); err != nil || got.Type != sr.TypeProtobuf || got.Schema != protoV1 {
		t.Fatalf("protobuf by id after replay: %+v %v", got, err)
	}
	if subjects, _ := b.cl.Subjects(ctx); len(subjects) != 2 {
		t.Fatalf("soft-deleted subject listed after replay: %v", subjects)
	}
	if c := b.cl.Compatibility(ctx, "r-value")[0]; c.Level != sr.CompatFull {
		t.Fatalf("level after replay: %+v", c)
	}
	if next := mustCreate(t, b, "n-value", avroSchema(`"bytes"`)); next.ID != 5 {
		t.Fatalf("next id after replay: %+v (ids 1-4 taken)", next)
	}
}

// TestRecordsInConfluentShape pins the _schemas keys and values.
func TestRecordsInConfluentShape(t *testing.T) {
	g := newRig(t)
	s := g.start("")
	mustCreate(t, s, "shape", sr.Schema{Schema: protoV1, Type: sr.TypeProtobuf})
	s.cl.SetCompatibility(context.Background(), sr.SetCompatibility{Level: sr.CompatNone})
	cl, err := kgo.NewClient(kgo.SeedBrokers(g.cluster.ListenAddrs()...), kgo.ConsumeTopics(DefaultTopic))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var recs []*kgo.Record
	for len(recs) < 2 {
		recs = append(recs, cl.PollFetches(context.Background()).Records()...)
	}
	wantKey := `{"keytype":"SCHEMA","subject":"shape","version":1,"magic":1}`
	var v map[string]any
	if string(recs[0].Key) != wantKey || json.Unmarshal(recs[0].Value, &v) != nil ||
		v["id"] != 1.0 || v["version"] != 1.0 || v["subject"] != "shape" || v["schemaType"] != "PROTOBUF" || v["deleted"] != false || v["schema"] != protoV1 {
		t.Fatalf("SCHEMA record: %s → %s", recs[0].Key, recs[0].Value)
	}
	if string(recs[1].Key) != `{"keytype":"CONFIG","subject":null,"magic":0}` || string(recs[1].Value) != `{"compatibilityLevel":"NONE"}` {
		t.Fatalf("CONFIG record: %s → %s", recs[1].Key, recs[1].Value)
	}
}

// TestServersShareTheLog: two registries on one topic register at once;
// each schema gets one id, every server answers the same, and a version
// race leaves one winner.
func TestServersShareTheLog(t *testing.T) {
	ctx := context.Background()
	g := newRig(t)
	a, b := g.start(""), g.start("")
	a.cl.SetCompatibility(ctx, sr.SetCompatibility{Level: sr.CompatNone}) // the racers' schemas differ
	var wg sync.WaitGroup
	ids := make([][]int, 2)
	for i, s := range []*server{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 10 {
				got, err := s.cl.CreateSchema(ctx, fmt.Sprintf("race-%d", n), avroSchema(fmt.Sprintf(`{"type":"fixed","name":"F%d_%d","size":1}`, i, n)))
				if err != nil {
					t.Error(err)
					return
				}
				ids[i] = append(ids[i], got.ID)
			}
		}()
	}
	wg.Wait()
	seen := map[int]bool{}
	for _, list := range ids {
		for _, id := range list {
			if seen[id] {
				t.Fatalf("id %d given to two schemas: %v", id, ids)
			}
			seen[id] = true
		}
	}
	for n := range 10 {
		subject := fmt.Sprintf("race-%d", n)
		va, errA := a.cl.Schemas(ctx, subject)
		vb, errB := b.cl.Schemas(ctx, subject)
		if errA != nil || errB != nil || len(va) != 2 || fmt.Sprint(va) != fmt.Sprint(vb) {
			t.Fatalf("%s: A %v %v, B %v %v", subject, va, errA, vb, errB)
		}
	}
	for _, id := range ids[0] {
		sa, _ := a.cl.SchemaByID(ctx, id)
		sb, err := b.cl.SchemaByID(ctx, id)
		if err != nil || sa.Schema != sb.Schema {
			t.Fatalf("id %d: A %q, B %q %v", id, sa.Schema, sb.Schema, err)
		}
	}
}

// TestPlainHTTP: no Content-Type, or application/json, is read as JSON;
// answers carry the registry's type and Confluent's error body.
func TestPlainHTTP(t *testing.T) {
	s := newRig(t).start("")
	s.cl.SetCompatibility(context.Background(), sr.SetCompatibility{Level: sr.CompatNone})
	for i, ct := range []string{"", "application/json", contentType} {
		body := fmt.Sprintf(`{"schema": "{\"type\":\"fixed\",\"name\":\"P%d\",\"size\":2}"}`, i)
		req, _ := http.NewRequest(http.MethodPost, s.url+"/subjects/plain/versions", strings.NewReader(body))
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]int
		_ = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || got["id"] != i+1 || resp.Header.Get("Content-Type") != contentType {
			t.Fatalf("Content-Type %q: %d %v %q", ct, resp.StatusCode, got, resp.Header.Get("Content-Type"))
		}
	}
	resp, err := http.Post(s.url+"/subjects/plain/versions", "", bytes.NewReader([]byte(`{"schema": `)))
	if err != nil {
		t.Fatal(err)
	}
	var e map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&e)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity || e["error_code"] != 422.0 || !strings.Contains(e["message"].(string), "offset") {
		t.Fatalf("a truncated body: %d %v", resp.StatusCode, e)
	}
	resp, err = http.Get(s.url + "/subjects/none/versions/1")
	if err != nil {
		t.Fatal(err)
	}
	_ = json.NewDecoder(resp.Body).Decode(&e)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || e["error_code"] != 40401.0 {
		t.Fatalf("unknown subject: %d %v", resp.StatusCode, e)
	}
}

// TestLostRaceRetries: B registers between A's choice of id and version
// and A's append. A's record loses (B's is first in the log), A appends
// B's record again so that compaction keeps B's, and retries with the
// next id and version.
func TestLostRaceRetries(t *testing.T) {
	ctx := context.Background()
	g := newRig(t)
	a, b := g.start(""), g.start("")
	a.cl.SetCompatibility(ctx, sr.SetCompatibility{Level: sr.CompatNone})
	var fromB sr.SubjectSchema
	a.reg.beforeAppend = func() {
		a.reg.beforeAppend = nil
		var err error
		if fromB, err = b.cl.CreateSchema(ctx, "contested", avroSchema(`"string"`)); err != nil {
			t.Error(err)
		}
	}
	fromA, err := a.cl.CreateSchema(ctx, "contested", avroSchema(`"long"`))
	if err != nil {
		t.Fatal(err)
	}
	if fromB.ID != 1 || fromB.Version != 1 || fromA.ID != 2 || fromA.Version != 2 {
		t.Fatalf("B won id 1 version 1, A retried: B %+v, A %+v", fromB, fromA)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(g.cluster.ListenAddrs()...), kgo.ConsumeTopics(DefaultTopic))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	last := map[string]string{}
	// The global CONFIG, B's version 1, A's losing version 1, B's again, A's version 2.
	for n := 0; n < 5; {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) { last[string(r.Key)] = string(r.Value); n++ })
	}
	var v schemaValue
	if err := json.Unmarshal([]byte(last[string(schemaKey("contested", 1))]), &v); err != nil || v.ID != 1 || v.Schema != `"string"` {
		t.Fatalf("the last record of version 1 (what compaction keeps) is not B's: %+v %v", v, err)
	}
}

// TestTopicChecks: a _schemas topic that would lose records (not
// compacted) or order ids ambiguously (several partitions) is refused at
// start, naming the topic and what to change.
func TestTopicChecks(t *testing.T) {
	ctx := context.Background()
	g := newRig(t)
	adm := kadm.NewClient(mustClient(t, kgo.SeedBrokers(g.cluster.ListenAddrs()...)))
	del := "delete"
	if _, err := adm.CreateTopic(ctx, 1, -1, map[string]*string{"cleanup.policy": &del}, "expiring"); err != nil {
		t.Fatal(err)
	}
	if _, err := adm.CreateTopic(ctx, 3, -1, nil, "spread"); err != nil {
		t.Fatal(err)
	}
	for topic, want := range map[string]string{"expiring": "cleanup.policy=delete", "spread": "has 3 partitions"} {
		_, err := New(ctx, WithKafka(kgo.SeedBrokers(g.cluster.ListenAddrs()...)), WithTopic(topic))
		if err == nil || !strings.Contains(err.Error(), topic) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", topic, err)
		}
	}
	if _, err := New(ctx, WithKafka(kgo.SeedBrokers(g.cluster.ListenAddrs()...)), WithTopic("")); err == nil {
		t.Error("an empty topic name starts")
	}
}

func mustClient(t *testing.T, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}
