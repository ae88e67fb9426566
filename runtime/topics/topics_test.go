package topics

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// fakeCluster has the topics of its map and records what is created.
type fakeCluster struct {
	parts   map[string]int32
	created []exec.TopicSpec
}

func (f *fakeCluster) Partitions(_ context.Context, topic string) (int32, bool, error) {
	n, ok := f.parts[topic]
	return n, ok, nil
}

func (f *fakeCluster) CreateTopic(_ context.Context, t exec.TopicSpec) error {
	f.created = append(f.created, t)
	f.parts[t.Name] = t.Partitions
	return nil
}

func (f *fakeCluster) text() string {
	var b strings.Builder
	for _, t := range f.created {
		fmt.Fprintf(&b, "%s/%d/%d %v\n", t.Name, t.Partitions, t.Replicas, t.Configs)
	}
	return b.String()
}

func code(err error) sqlerr.Code {
	var se *sqlerr.Error
	if errors.As(err, &se) {
		return se.Code
	}
	return sqlerr.Code("")
}

// TestEnsureSource: an existing topic gives its count (a different
// PARTITIONS is refused, except on replay); a missing one is refused
// without PARTITIONS, created with it, and past MaxPartitions refused.
func TestEnsureSource(t *testing.T) {
	ctx := context.Background()
	c := &fakeCluster{parts: map[string]int32{"in": 3}}
	tp := Topics{Cluster: c, MaxPartitions: 8}
	src := &planner.Source{Topic: "in"}
	if err := tp.EnsureSource(ctx, src, ast.Pos{}, false); err != nil || src.Partitions != 3 {
		t.Fatalf("existing topic: %v, partitions %d", err, src.Partitions)
	}
	if err := tp.EnsureSource(ctx, &planner.Source{Topic: "in", Partitions: 2}, ast.Pos{}, false); code(err) != sqlerr.Kafka {
		t.Errorf("mismatched PARTITIONS: %v", err)
	}
	if err := tp.EnsureSource(ctx, &planner.Source{Topic: "in", Partitions: 2}, ast.Pos{}, true); err != nil {
		t.Errorf("mismatched PARTITIONS on replay: %v", err)
	}
	if err := tp.EnsureSource(ctx, &planner.Source{Topic: "none"}, ast.Pos{}, false); code(err) != sqlerr.Kafka || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing topic: %v", err)
	}
	if err := tp.EnsureSource(ctx, &planner.Source{Topic: "big", Partitions: 9}, ast.Pos{}, false); code(err) != sqlerr.Kafka {
		t.Errorf("past MaxPartitions: %v", err)
	}
	if err := tp.EnsureSource(ctx, &planner.Source{Topic: "new", Partitions: 4, Replicas: 1}, ast.Pos{}, false); err != nil {
		t.Fatal(err)
	}
	tp.AutoCreate = true
	if err := tp.EnsureSource(ctx, &planner.Source{Topic: "auto"}, ast.Pos{}, false); err != nil {
		t.Fatal(err)
	}
	if got, want := c.text(), "new/4/1 map[]\nauto/1/0 map[]\n"; got != want {
		t.Errorf("created:\n%s\nwant:\n%s", got, want)
	}
}

// TestCreateInternal: internal topics take the first source's count or
// that of the topic they follow, the internal replication factor, and
// changelogs' cleanup policies; a table's sink topic is compacted.
func TestCreateInternal(t *testing.T) {
	ctx := context.Background()
	c := &fakeCluster{parts: map[string]int32{"left": 2, "right": 5}}
	tp := Topics{Cluster: c, MaxPartitions: 8, InternalReplicas: 3}
	plan := &planner.Plan{Sources: []*planner.Source{{Topic: "left"}, {Topic: "right"}}}
	topo := &physical.Topology{Internal: []physical.InternalTopic{
		{Name: "app-repartition"},
		{Name: "app-changelog", Compact: true},
		{Name: "app-windowed-changelog", Compact: true, RetentionMs: 1000},
		{Name: "app-subscription", PartitionsOf: "right"},
	}}
	if err := tp.CreateInternal(ctx, plan, topo); err != nil {
		t.Fatal(err)
	}
	if err := tp.EnsureSink(ctx, &planner.Source{Topic: "sink", Kind: ast.Table}, ast.Pos{}); err != nil {
		t.Fatal(err)
	}
	want := "app-repartition/2/3 map[]\n" +
		"app-changelog/2/3 map[cleanup.policy:compact]\n" +
		"app-windowed-changelog/2/3 map[cleanup.policy:compact,delete retention.ms:1000]\n" +
		"app-subscription/5/3 map[]\n" +
		"sink/1/0 map[cleanup.policy:compact]\n"
	if got := c.text(); got != want {
		t.Errorf("created:\n%s\nwant:\n%s", got, want)
	}
}
