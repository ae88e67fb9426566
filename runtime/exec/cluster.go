package exec

import (
	"context"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Cluster is where topics live and queries run: Kafka (Kafka) for the
// server, or an in-memory, synchronous cluster (Mem) for the test driver.
// The engine's statement logic is the same on both; what only one of them
// can do is a method here too (the in-memory cluster answers it as a
// cluster without brokers or group offsets would), so the engine never
// asks which one it has.
type Cluster interface {
	// Partitions returns a topic's partition count; exists is false for a
	// missing topic.
	Partitions(ctx context.Context, topic string) (n int32, exists bool, err error)
	CreateTopic(ctx context.Context, t TopicSpec) error
	DeleteTopic(ctx context.Context, topic string) error
	ListTopics(ctx context.Context) ([]TopicInfo, error)
	// TopicConsumers counts, per topic, what SHOW TOPICS EXTENDED shows
	// (topics no group member consumes are absent).
	TopicConsumers(ctx context.Context) (map[string]TopicConsumers, error)
	// Produce writes records and waits until they are acknowledged.
	Produce(ctx context.Context, recs ...*physical.OutRecord) error
	// Start runs a persistent query's topology until the runner is
	// stopped.
	Start(q *Query) (Runner, error)
	// StartPush runs a push query's topology, handing rows to q.Rows.
	StartPush(q *Push) (Runner, error)
	// Read consumes a topic from the beginning or end for PRINT and the
	// command topic: fn is called per record until it returns false or
	// ctx ends; untilEnd stops at the end offsets seen at the start.
	Read(ctx context.Context, topic string, fromBeginning, untilEnd bool, fn func(*physical.InRecord) bool) error
	// Follow loads every record of every partition of topic (a global
	// table's) into s from its checkpoint, returning once it is caught up
	// with the end offsets at the call (or ctx ends), and keeps loading
	// later records until stop. opts are the consumer's Kafka client
	// options (the global consumer's settings), after the follower's own.
	Follow(ctx context.Context, topic string, s FollowStore, onErr func(error), opts ...kgo.Opt) (stop func(), err error)

	// Synchronous is true for the in-memory cluster: producing runs every
	// query downstream before it returns, so there are no group offsets
	// to initialize or wait for, no broker to ping, and background work
	// (a global table's load, the processing log's writer) runs inline.
	Synchronous() bool
	// Ping checks that the cluster answers (start-up, /healthcheck).
	Ping(ctx context.Context) error
	// CommitEnds commits the current end offsets of topics for group, so
	// a new query reading "latest" starts exactly where the topics are.
	CommitEnds(ctx context.Context, group string, topics []string) error
	// EndOffsets lists the end offsets of topics' partitions.
	EndOffsets(ctx context.Context, topics ...string) (kadm.ListedOffsets, error)
	// CommittedOffsets fetches the offsets group committed.
	CommittedOffsets(ctx context.Context, group string) (kadm.OffsetResponses, error)
	Close()
}

// Runner is a running query.
type Runner interface {
	// Stop ends processing; for persistent queries it commits what was
	// processed first.
	Stop() error
}

// RunnerFunc adapts a function to Runner.
type RunnerFunc func() error

// Stop implements Runner.
func (f RunnerFunc) Stop() error { return f() }

// TaskReporter is a runner that reports the tasks it runs on this server
// (the Kafka runner; the in-memory cluster runs no group).
type TaskReporter interface {
	Runner
	// Tasks are this server's active, standby and warmup tasks, in task
	// order.
	Tasks() []TaskAssignment
	// Replicas are this server's standby and warmup tasks.
	Replicas() []TaskAssignment
	// ReplicaErrors is the feed errors of the replicas, and the last one.
	ReplicaErrors() (int64, string)
}

// TopicSpec is a topic to create.
type TopicSpec struct {
	Name       string
	Partitions int32
	Replicas   int16
	Configs    map[string]string
}

// TopicConsumers is a topic's consumers as ksqlDB's SHOW TOPICS EXTENDED
// counts them: Consumers is the number of (group member, partition)
// assignments of the topic over all consumer groups (a member assigned
// three partitions counts three), Groups the number of groups with such
// a member. Only members' current assignments count: a group without
// members (a stopped query) counts nothing, however many offsets it has
// committed.
type TopicConsumers struct {
	Consumers, Groups int
}

// TopicInfo is one topic of SHOW TOPICS.
type TopicInfo struct {
	Name       string
	Partitions int32
	Replicas   int
	Internal   bool
}
