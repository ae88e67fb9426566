package runtime

import (
	"context"

	"github.com/sqlstream/sqlstream/physical"
)

// cluster is where topics live and queries run: Kafka (kafkaCluster) for
// the server, or an in-memory, synchronous cluster (memCluster) for the
// test driver. The engine's statement logic is the same on both.
type cluster interface {
	// partitions returns a topic's partition count; exists is false for a
	// missing topic.
	partitions(ctx context.Context, topic string) (n int32, exists bool, err error)
	createTopic(ctx context.Context, t topicSpec) error
	deleteTopic(ctx context.Context, topic string) error
	listTopics(ctx context.Context) ([]topicInfo, error)
	// topicConsumers counts, per topic, what SHOW TOPICS EXTENDED shows
	// (topics no group member consumes are absent).
	topicConsumers(ctx context.Context) (map[string]topicConsumers, error)
	// produce writes records and waits until they are acknowledged.
	produce(ctx context.Context, recs ...*physical.OutRecord) error
	// start runs a persistent query's topology until the runner is stopped.
	start(q *query) (runner, error)
	// startTransient runs a push query's topology, handing rows to q.rows.
	startTransient(q *transient) (runner, error)
	// read consumes a topic from the beginning or end for PRINT and the
	// command topic: fn is called per record until it returns false or
	// ctx ends; untilEnd stops at the end offsets seen at the start.
	read(ctx context.Context, topic string, fromBeginning, untilEnd bool, fn func(*physical.InRecord) bool) error
	// follow loads every record of every partition of topic (a global
	// table's) into s from its checkpoint, returning once it is caught up
	// with the end offsets at the call (or ctx ends), and keeps loading
	// later records until stop.
	follow(ctx context.Context, topic string, s *globalStore, onErr func(error)) (stop func(), err error)
	close()
}

// runner is a running query.
type runner interface {
	// stop ends processing; for persistent queries it commits what was
	// processed first.
	stop() error
}

// topicSpec is a topic to create.
type topicSpec struct {
	name       string
	partitions int32
	replicas   int16
	configs    map[string]string
}

// topicConsumers is a topic's consumers as ksqlDB's SHOW TOPICS EXTENDED
// counts them: consumers is the number of (group member, partition)
// assignments of the topic over all consumer groups (a member assigned
// three partitions counts three), groups the number of groups with such
// a member. Only members' current assignments count: a group without
// members (a stopped query) counts nothing, however many offsets it has
// committed.
type topicConsumers struct {
	consumers, groups int
}

// topicInfo is one topic of SHOW TOPICS.
type topicInfo struct {
	name       string
	partitions int32
	replicas   int
	internal   bool
}
