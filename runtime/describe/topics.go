package describe

import (
	"context"
	"strings"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/sql/ast"
)

// Topics is the cluster as SHOW TOPICS reads it (the executor's Cluster
// has the methods).
type Topics interface {
	ListTopics(ctx context.Context) ([]exec.TopicInfo, error)
	TopicConsumers(ctx context.Context) (map[string]exec.TopicConsumers, error)
}

// TopicList is SHOW [ALL] TOPICS [EXTENDED]. Without ALL, the topics
// Hidden reports under hidden (the application ids' prefixes) are left
// out.
func TopicList(ctx context.Context, c Topics, st *ast.Show, hidden []string) (api.Entity, error) {
	ts, err := c.ListTopics(ctx)
	if err != nil {
		return nil, err
	}
	var shown []exec.TopicInfo
	for _, t := range ts {
		if st.All || !Hidden(t, hidden) {
			shown = append(shown, t)
		}
	}
	if st.Extended {
		return topicsExtended(ctx, c, st, shown)
	}
	out := api.KafkaTopicsList{StatementText: st.Text()}
	for _, t := range shown {
		out.Topics = append(out.Topics, api.KafkaTopicInfo{Name: t.Name, ReplicaInfo: replicaInfo(t)})
	}
	return out, nil
}

// topicsExtended is SHOW [ALL] TOPICS EXTENDED: each topic with its
// consumers and consumer groups.
func topicsExtended(ctx context.Context, c Topics, st *ast.Show, ts []exec.TopicInfo) (api.Entity, error) {
	counts, err := c.TopicConsumers(ctx)
	if err != nil {
		return nil, err
	}
	out := api.KafkaTopicsListExtended{StatementText: st.Text()}
	for _, t := range ts {
		n := counts[t.Name]
		out.Topics = append(out.Topics, api.KafkaTopicInfoExtended{Name: t.Name, ReplicaInfo: replicaInfo(t),
			ConsumerCount: n.Consumers, ConsumerGroupCount: n.Groups})
	}
	return out, nil
}

// replicaInfo is the replica count of each partition.
func replicaInfo(t exec.TopicInfo) []int {
	out := make([]int, t.Partitions)
	for i := range out {
		out[i] = t.Replicas
	}
	return out
}

// Hidden reports whether SHOW TOPICS leaves t out (SHOW ALL TOPICS
// lists it), as ksqlDB's ksql.hidden.topics does by default: Kafka's own
// topics, every name starting with '_' (the command topic, _schemas,
// _confluent-…), and the changelog and repartition topics of persistent
// queries: names starting with one of prefixes (the engine's
// application-id prefixes and each query's "<application id>-"). The
// processing log stays visible, as in ksqlDB.
func Hidden(t exec.TopicInfo, prefixes []string) bool {
	if t.Internal || strings.HasPrefix(t.Name, "_") {
		return true
	}
	for _, p := range prefixes {
		if strings.HasPrefix(t.Name, p) {
			return true
		}
	}
	return false
}
