package assert

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/sql/ast"
)

// Topics lists the cluster's topics (the executor's Cluster has the
// method).
type Topics interface {
	ListTopics(ctx context.Context) ([]exec.TopicInfo, error)
}

// Topic runs ASSERT [NOT EXISTS] TOPIC as ksqlDB's AssertTopicExecutor:
// the cluster is asked whether the topic exists and, for ASSERT TOPIC
// with WITH (PARTITIONS=…, REPLICAS=…), whether it has those counts,
// every 100 ms until the assertion holds or the timeout (TIMEOUT, else
// def: ksql.assert.topic.default.timeout.ms) passes; then the last
// failure is an assertion error (HTTP 417, "Topic t does not exist",
// "Topic t exists", "Mismatched configuration for topic t: …").
func Topic(ctx context.Context, c Topics, st *ast.AssertTopic, def time.Duration) (api.Entity, error) {
	err := retry(ctx, timeout(st.TimeoutMs, def), func() string { return checkTopicAssertion(ctx, c, st) })
	if err != nil {
		return nil, err
	}
	return api.AssertTopicEntity{StatementText: st.Text(), TopicName: st.Topic, Exists: !st.NotExists}, nil
}

// checkTopicAssertion returns why st does not hold now ("" when it does).
// A NOT EXISTS assertion ignores the WITH clause, as ksqlDB does.
func checkTopicAssertion(ctx context.Context, c Topics, st *ast.AssertTopic) string {
	info, exists, err := describeTopic(ctx, c, st.Topic)
	switch {
	case err != nil:
		return "Cannot check topic existence: " + err.Error()
	case st.NotExists && exists:
		return "Topic " + st.Topic + " exists"
	case st.NotExists:
		return ""
	case !exists:
		return "Topic " + st.Topic + " does not exist"
	}
	return topicConfigErrors(st, info)
}

// describeTopic finds topic among the cluster's topics.
func describeTopic(ctx context.Context, c Topics, topic string) (exec.TopicInfo, bool, error) {
	topics, err := c.ListTopics(ctx)
	if err != nil {
		return exec.TopicInfo{}, false, err
	}
	for _, t := range topics {
		if t.Name == topic {
			return t, true, nil
		}
	}
	return exec.TopicInfo{}, false, nil
}

// topicConfigErrors checks the WITH clause's PARTITIONS and REPLICAS
// against the topic, in ksqlDB's words, one line per mismatch; any other
// property is an error too ("Cannot assert unknown topic property: X").
func topicConfigErrors(st *ast.AssertTopic, info exec.TopicInfo) string {
	var errs []string
	for _, p := range st.Props {
		var actual int
		switch p.Name {
		case "PARTITIONS":
			actual = int(info.Partitions)
		case "REPLICAS":
			actual = info.Replicas
		default:
			errs = append(errs, "Cannot assert unknown topic property: "+p.Name)
			continue
		}
		if !integerLiteral(p.Value, actual) {
			errs = append(errs, fmt.Sprintf("Mismatched configuration for topic %s: For config %s, expected %s got %d",
				st.Topic, strings.ToLower(p.Name), literalText(p.Value), actual))
		}
	}
	return strings.Join(errs, "\n")
}

// integerLiteral says whether lit is the INTEGER n (ksqlDB compares an
// Integer literal only: '3', 3.0 or a BIGINT never match).
func integerLiteral(lit *ast.Literal, n int) bool {
	v, ok := lit.Value.(int32)
	return ok && int(v) == n
}

// literalText is a literal's value as Java's toString prints it (a
// string without quotes).
func literalText(lit *ast.Literal) string {
	return fmt.Sprint(lit.Value)
}
