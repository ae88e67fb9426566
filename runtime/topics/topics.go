package topics

import (
	"context"
	"fmt"
	"strconv"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// Cluster is what of the executor's Cluster topics need.
type Cluster interface {
	// Partitions returns a topic's partition count; exists is false for
	// a missing topic.
	Partitions(ctx context.Context, topic string) (n int32, exists bool, err error)
	CreateTopic(ctx context.Context, t exec.TopicSpec) error
}

// Topics checks and creates the topics of statements on a cluster.
type Topics struct {
	Cluster Cluster
	// MaxPartitions is sqlstream.topic.partitions.max: no topic is
	// created with more partitions.
	MaxPartitions int
	// InternalReplicas is ksql.internal.topic.replicas, the replication
	// factor of repartition and changelog topics.
	InternalReplicas int16
	// AutoCreate creates a missing source topic (one partition) instead
	// of refusing CREATE STREAM/TABLE: the test driver's behaviour, where
	// a test's input topics exist implicitly.
	AutoCreate bool
}

// EnsureSource checks the topic of a CREATE STREAM/TABLE: it must exist
// unless PARTITIONS is given, in which case it is created; an existing
// topic's partition count must match PARTITIONS (not on replay, when
// the topic may have grown since). src.Partitions becomes the topic's.
func (t Topics) EnsureSource(ctx context.Context, src *planner.Source, pos ast.Pos, replay bool) error {
	n, exists, err := t.Cluster.Partitions(ctx, src.Topic)
	if err != nil {
		return fmt.Errorf("could not describe topic %s: %w", src.Topic, err)
	}
	switch {
	case exists && src.Partitions > 0 && n != src.Partitions && !replay:
		return sqlerr.New(sqlerr.Kafka, pos, "A Kafka topic with the name '%s' already exists, with different partition/replica configuration than required. KSQL expects %d partitions (topic has %d).", src.Topic, src.Partitions, n)
	case exists:
		src.Partitions = n
		return nil
	case src.Partitions == 0 && t.AutoCreate:
		src.Partitions = 1
	case src.Partitions == 0:
		return sqlerr.New(sqlerr.Kafka, pos, "Kafka topic does not exist: %s", src.Topic)
	}
	if err := t.checkPartitions(src.Partitions, pos); err != nil {
		return err
	}
	return t.Cluster.CreateTopic(ctx, exec.TopicSpec{Name: src.Topic, Partitions: src.Partitions, Replicas: src.Replicas})
}

// EnsureSink creates the sink topic of a CREATE … AS SELECT with the
// source's partition count (or PARTITIONS) when it does not exist, a
// table's compacted; sink.Partitions becomes the topic's.
func (t Topics) EnsureSink(ctx context.Context, sink *planner.Source, pos ast.Pos) error {
	n, exists, err := t.Cluster.Partitions(ctx, sink.Topic)
	if err != nil {
		return err
	}
	if exists {
		sink.Partitions = n
		return nil
	}
	if sink.Partitions <= 0 {
		sink.Partitions = 1
	}
	if err := t.checkPartitions(sink.Partitions, pos); err != nil {
		return err
	}
	spec := exec.TopicSpec{Name: sink.Topic, Partitions: sink.Partitions, Replicas: sink.Replicas}
	if sink.Kind == ast.Table {
		spec.Configs = map[string]string{"cleanup.policy": "compact"}
	}
	return t.Cluster.CreateTopic(ctx, spec)
}

// checkPartitions refuses to create a topic of more than MaxPartitions
// partitions: each costs memory in every query reading the topic.
func (t Topics) checkPartitions(n int32, pos ast.Pos) error {
	if int(n) <= t.MaxPartitions {
		return nil
	}
	return sqlerr.New(sqlerr.Kafka, pos, "Invalid value %d for PARTITIONS: a topic may have at most %d partitions (server property %s)", n, t.MaxPartitions, props.MaxPartitions)
}

// CreateInternal creates a topology's repartition and changelog topics
// with the partition count of the topic each follows (its first source
// topic's unless physical names another), changelogs compacted (and
// deleted past their retention when windowed).
func (t Topics) CreateInternal(ctx context.Context, plan *planner.Plan, topo *physical.Topology) error {
	n := plan.Sources[0].Partitions
	if n <= 0 {
		var err error
		if n, _, err = t.Cluster.Partitions(ctx, plan.Sources[0].Topic); err != nil {
			return err
		}
	}
	for _, it := range topo.Internal {
		n, err := t.internalPartitions(ctx, plan, it, n)
		if err != nil {
			return err
		}
		spec := exec.TopicSpec{Name: it.Name, Partitions: max(n, 1), Replicas: t.InternalReplicas}
		switch {
		case it.Compact && it.RetentionMs > 0:
			spec.Configs = map[string]string{"cleanup.policy": "compact,delete", "retention.ms": strconv.FormatInt(it.RetentionMs, 10)}
		case it.Compact:
			spec.Configs = map[string]string{"cleanup.policy": "compact"}
		}
		if err := t.Cluster.CreateTopic(ctx, spec); err != nil {
			return fmt.Errorf("could not create internal topic %s: %w", it.Name, err)
		}
	}
	return nil
}

// internalPartitions is the partition count of an internal topic: that of
// the source topic it follows (a foreign-key join's subscription topic
// and right-side stores follow the right table), else def.
func (t Topics) internalPartitions(ctx context.Context, plan *planner.Plan, it physical.InternalTopic, def int32) (int32, error) {
	if it.PartitionsOf == "" {
		return def, nil
	}
	for _, s := range plan.Sources {
		if s.Topic == it.PartitionsOf {
			return t.sourcePartitions(ctx, s)
		}
	}
	return def, nil
}

// sourcePartitions is the partition count of a source's topic as the
// cluster has it (the declared count if the topic is not there yet).
func (t Topics) sourcePartitions(ctx context.Context, src *planner.Source) (int32, error) {
	n, ok, err := t.Cluster.Partitions(ctx, src.Topic)
	if err != nil || !ok {
		return max(src.Partitions, 1), err
	}
	return n, nil
}
