package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// pair is two engines of one service id (sharing the command-topic
// secret) on one embedded broker, each with its own data directory.
type pair struct {
	*rig
	a, b    *runtime.Engine
	bClosed bool
}

func newPair(t *testing.T) *pair {
	r := &rig{t: t, dir: t.TempDir()}
	r.startBroker()
	p := &pair{rig: r}
	p.a = p.engine("a")
	p.b = p.engine("b")
	t.Cleanup(func() {
		p.a.Close()
		if !p.bClosed {
			p.b.Close()
		}
		r.b.Close()
	})
	return p
}

func (p *pair) engine(name string, extra ...runtime.Option) *runtime.Engine {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts := append([]runtime.Option{runtime.WithBootstrap(p.rig.b.Addrs()), runtime.WithDataDir(p.dir + "/" + name + "/state"),
		runtime.WithServiceID("scale_"),
		runtime.WithProperties(map[string]string{props.CommitInterval: "100",
			props.CommandSecret: "a-shared-secret-of-the-service"}),
		runtime.WithLogger(slog.New(slog.DiscardHandler))}, extra...)
	e, err := runtime.New(ctx, opts...)
	if err != nil {
		p.t.Fatal(err)
	}
	return e
}

func execOn(t *testing.T, e *runtime.Engine, sql string, seq *int64) []api.Entity {
	t.Helper()
	out, err := e.Execute(context.Background(), api.KsqlRequest{Ksql: sql, CommandSequenceNumber: seq})
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

func lastSeq(t *testing.T, ents []api.Entity) *int64 {
	t.Helper()
	for i := len(ents) - 1; i >= 0; i-- {
		if cs, ok := ents[i].(api.CommandStatusEntity); ok {
			return &cs.CommandSequenceNumber
		}
	}
	t.Fatalf("no command status in %v", ents)
	return nil
}

func sourceNames(e *runtime.Engine) []string {
	srcs, _ := e.Catalog()
	var names []string
	for _, s := range srcs {
		names = append(names, s.Name)
	}
	sort.Strings(names)
	return names
}

func queryIDs(t *testing.T, e *runtime.Engine) []string {
	t.Helper()
	var ids []string
	for _, ent := range execOn(t, e, "SHOW QUERIES;", nil) {
		if qs, ok := ent.(api.QueriesList); ok {
			for _, q := range qs.Queries {
				ids = append(ids, q.ID)
			}
		}
	}
	sort.Strings(ids)
	return ids
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A statement posted to one server takes effect on the other: a CREATE
// on A is in B's catalog once B reached its sequence number, B runs A's
// query, and a TERMINATE on B stops it on A.
func TestSharedCatalogAcrossServers(t *testing.T) {
	t.Parallel()
	p := newPair(t)
	out := execOn(t, p.a, "CREATE STREAM S (K STRING KEY, V INT) WITH (KAFKA_TOPIC='s', PARTITIONS=2, VALUE_FORMAT='JSON');", nil)
	seq := lastSeq(t, out)
	execOn(t, p.b, "SHOW STREAMS;", seq)
	if got := sourceNames(p.b); !contains(got, "S") {
		t.Fatalf("B's catalog after A's CREATE (seq %d): %v", *seq, got)
	}
	out = execOn(t, p.b, "CREATE STREAM T AS SELECT K, V * 2 AS W FROM S;", nil)
	if *lastSeq(t, out) <= *seq {
		t.Fatalf("B's command got sequence number %d, not after A's %d", *lastSeq(t, out), *seq)
	}
	ids := queryIDs(t, p.b)
	if len(ids) != 1 {
		t.Fatalf("queries on B: %v", ids)
	}
	eventually(t, "A runs B's query", func() bool { return strings.Join(queryIDs(t, p.a), ",") == ids[0] })
	execOn(t, p.b, "TERMINATE "+ids[0]+";", nil)
	eventually(t, "A stops the query terminated on B", func() bool { return len(queryIDs(t, p.a)) == 0 })
}

// Two servers racing CREATEs of one name: one succeeds, the other gets
// the clean "already exists" error, and both catalogs agree.
func TestRacingCreatesAcrossServers(t *testing.T) {
	t.Parallel()
	p := newPair(t)
	for round := 0; round < 3; round++ {
		name := fmt.Sprintf("R%d", round)
		sql := "CREATE STREAM " + name + " (V INT) WITH (KAFKA_TOPIC='" + strings.ToLower(name) + "', PARTITIONS=1, VALUE_FORMAT='JSON');"
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, e := range []*runtime.Engine{p.a, p.b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = e.Execute(context.Background(), api.KsqlRequest{Ksql: sql})
			}()
		}
		wg.Wait()
		var failed []error
		for _, err := range errs {
			if err != nil {
				failed = append(failed, err)
			}
		}
		if len(failed) != 1 || !strings.Contains(failed[0].Error(), "already exists") {
			t.Fatalf("round %d: want one success and one \"already exists\" error, got %v", round, errs)
		}
	}
	const all = "KSQL_PROCESSING_LOG,R0,R1,R2"
	eventually(t, "both catalogs hold R0..R2", func() bool {
		return strings.Join(sourceNames(p.a), ",") == all && strings.Join(sourceNames(p.b), ",") == all
	})
	if cmds := p.commands("_scale__command_topic"); len(cmds) != 3 {
		t.Fatalf("the command topic holds %d committed commands, want one per name:\n%s", len(cmds), strings.Join(cmds, "\n"))
	}
}

// Both servers run a query and split its tasks (the partitions of its
// source) through the query's consumer group and its task balancer;
// together they write each output record once, the output one server
// alone writes, under either guarantee.
func TestQueryTasksSplitAcrossServers(t *testing.T) {
	t.Parallel()
	for _, guarantee := range []string{"at_least_once", "exactly_once_v2"} {
		t.Run(guarantee, func(t *testing.T) { testTasksSplit(t, guarantee) })
	}
}

func testTasksSplit(t *testing.T, guarantee string) {
	p := newPair(t)
	p.splitQuery(t, guarantee)
	p.checkDoubled(t, 0, 200)
}

// splitQuery creates S (four partitions) and T doubling it on A and waits
// until A and B own two tasks each of T's query.
func (p *pair) splitQuery(t *testing.T, guarantee string) {
	t.Helper()
	execOn(t, p.a, "CREATE STREAM S (K STRING KEY, V INT) WITH (KAFKA_TOPIC='s', PARTITIONS=4, VALUE_FORMAT='JSON');", nil)
	out := execOn(t, p.a, "SET 'processing.guarantee'='"+guarantee+"'; CREATE STREAM T WITH (KAFKA_TOPIC='t') AS SELECT K, V * 2 AS W FROM S;", nil)
	cs := out[len(out)-1].(api.CommandStatusEntity)
	group := "scale_query_" + *cs.CommandStatus.QueryID
	adm := kadm.NewClient(p.rig.clientOrFatal())
	var g kadm.DescribedGroup
	eventually(t, "both servers own partitions of "+group, func() bool {
		gs, err := adm.DescribeGroups(context.Background(), group)
		if err != nil {
			return false
		}
		g = gs[group]
		if g.State != "Stable" || len(g.Members) != 2 {
			return false
		}
		for _, m := range g.Members {
			a, ok := m.Assigned.AsConsumer()
			if !ok || len(a.Topics) == 0 || len(a.Topics[0].Partitions) != 2 {
				return false
			}
		}
		return true
	})
	if g.Protocol != "sqlstream-tasks-v1" {
		t.Fatalf("group %s balanced by %q", group, g.Protocol)
	}
}

// checkDoubled writes values from..from+n-1 to S and checks that T then
// holds each doubled value once, for every value written so far.
func (p *pair) checkDoubled(t *testing.T, from, n int) {
	t.Helper()
	var want []string
	for i := 0; i < from; i++ {
		want = append(want, fmt.Sprintf(`{"W":%d}`, 2*i))
	}
	for i := from; i < from+n; i++ {
		k := fmt.Sprintf("k%d", i)
		p.produce("s", k, fmt.Sprintf(`{"V":%d}`, i))
		want = append(want, fmt.Sprintf(`{"W":%d}`, 2*i))
	}
	var got []string
	eventually(t, "the output of both servers", func() bool {
		got = p.committed("t")
		return len(got) >= len(want)
	})
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("output of two servers (%d records) is not the single-server output (%d records)", len(got), len(want))
	}
}

// When one server stops, the other takes over its tasks and the output
// stays exactly the single-server output.
func TestSurvivingServerTakesOverTasks(t *testing.T) {
	t.Parallel()
	p := newPair(t)
	p.splitQuery(t, "at_least_once")
	p.checkDoubled(t, 0, 100)
	p.bClosed = true
	if err := p.b.Close(); err != nil {
		t.Fatal(err)
	}
	p.checkDoubled(t, 100, 100)
}

func (r *rig) clientOrFatal() *kgo.Client {
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.b.Addrs()...))
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(cl.Close)
	return cl
}

// committed returns the values of topic's committed records, read until
// a second passes without one.
func (r *rig) committed(topic string) []string {
	r.t.Helper()
	return r.committedExcept(topic, "")
}

// commands returns the statements of the command topic: its committed
// records but the chain start.
func (r *rig) commands(topic string) []string {
	r.t.Helper()
	return r.committedExcept(topic, "sqlstream-chain-start")
}

// committedExcept is committed without the records keyed skip.
func (r *rig) committedExcept(topic, skip string) []string {
	r.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.b.Addrs()...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		r.t.Fatal(err)
	}
	defer cl.Close()
	var out []string
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		fs := cl.PollFetches(ctx)
		cancel()
		if fs.NumRecords() == 0 {
			return out
		}
		fs.EachRecord(func(rec *kgo.Record) {
			if skip == "" || string(rec.Key) != skip {
				out = append(out, string(rec.Value))
			}
		})
	}
}

// A server that dies in the middle of an append (its transaction on the
// command topic open) leaves no half command: the next append, on any
// server, fences its transactional id (the service id) and aborts the
// open transaction at once, rather than waiting out its timeout, and
// the dead server's record is never readable.
func TestAppendFencesADeadServersOpenAppend(t *testing.T) {
	t.Parallel()
	p := newPair(t)
	dead, err := kgo.NewClient(kgo.SeedBrokers(p.rig.b.Addrs()...), kgo.TransactionalID("scale_"),
		kgo.TransactionTimeout(time.Minute), kgo.DefaultProduceTopic("_scale__command_topic"))
	if err != nil {
		t.Fatal(err)
	}
	defer dead.Close()
	if err := dead.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	half := `{"seq":0,"statement":"CREATE STREAM HALF (V INT) WITH (KAFKA_TOPIC='half', PARTITIONS=1, VALUE_FORMAT='JSON');"}`
	if err := dead.ProduceSync(context.Background(), &kgo.Record{Value: []byte(half)}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	execOn(t, p.b, "CREATE STREAM WHOLE (V INT) WITH (KAFKA_TOPIC='whole', PARTITIONS=1, VALUE_FORMAT='JSON');", nil)
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("the append waited %v for the dead server's transaction", d)
	}
	cmds := p.commands("_scale__command_topic")
	if len(cmds) != 1 || !strings.Contains(cmds[0], "WHOLE") {
		t.Fatalf("committed commands: %v", cmds)
	}
	eventually(t, "A applied WHOLE", func() bool { return contains(sourceNames(p.a), "WHOLE") })
}

// A request naming a commandSequenceNumber the server has not reached
// fails with ksqlDB's catch-up timeout (HTTP 503) rather than running
// against an older catalog.
func TestCommandSequenceNumberNotReached(t *testing.T) {
	t.Parallel()
	p := newPair(t)
	ahead := int64(1000)
	_, err := p.b.Execute(context.Background(), api.KsqlRequest{Ksql: "SHOW STREAMS;", CommandSequenceNumber: &ahead})
	var ae *api.ErrorMessage
	if !errors.As(err, &ae) || ae.ErrorCode != api.CodeCommandQueueCatchupTimeout || ae.HTTPStatus() != 503 {
		t.Fatalf("got %v, want the catch-up timeout", err)
	}
}
