package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/api"
)

// tasksOf returns GET /tasks' tasks of the query whose id starts with
// prefix (nil: no such query yet).
func tasksOf(t *testing.T, n *node, prefix string) (string, []api.TaskInfo) {
	t.Helper()
	status, body := n.get("/tasks")
	if status != http.StatusOK {
		t.Fatalf("GET /tasks: %d %s", status, body)
	}
	var qs []api.QueryTasks
	if err := json.Unmarshal(body, &qs); err != nil {
		t.Fatalf("GET /tasks: %v in %s", err, body)
	}
	for _, q := range qs {
		if strings.HasPrefix(q.QueryID, prefix) {
			return q.QueryID, q.Tasks
		}
	}
	return "", nil
}

// caughtUp checks that a query's two active tasks report a consumer
// lag of 0, each input at its last stable offset, and returns the sum
// of their positions.
func caughtUp(tasks []api.TaskInfo) (int64, error) {
	var sum int64
	active := 0
	for _, task := range tasks {
		if task.Role != "ACTIVE" {
			continue
		}
		active++
		if task.ConsumerLag == nil || *task.ConsumerLag != 0 || len(task.Inputs) != 1 {
			return 0, fmt.Errorf("task %s: consumer lag %v, inputs %+v", task.TaskID, task.ConsumerLag, task.Inputs)
		}
		in := task.Inputs[0]
		if in.Lag != 0 || in.Position != in.LastStableOffset {
			return 0, fmt.Errorf("task %s: input %+v not at its last stable offset", task.TaskID, in)
		}
		sum += in.Position
	}
	if active != 2 {
		return 0, fmt.Errorf("%d active tasks in %+v, want 2", active, tasks)
	}
	return sum, nil
}

// TestTaskConsumerLagThroughTheBinary: GET /tasks and /metrics give each
// active task's consumer lag: once ten records are processed, every task
// of a query reading them is at its partition's end with lag 0, its
// positions summing to the ten records; a query reading the topic an
// exactly_once_v2 query writes in transactions also reaches lag 0 (each
// commit marker takes an offset that no record carries, and its tasks'
// positions pass them). /metrics also counts the records of each node of
// the copy's topology and of a stream–table join's (the nodes inside the
// join's head too: each node EXPLAIN describes), and times the at_least_once query's commits as it
// times the exactly_once_v2 query's transaction ends.
func TestTaskConsumerLagThroughTheBinary(t *testing.T) {
	n := startNode(t, "--config", writeConfig(t, "ksql.streams.commit.interval.ms=100\n"))
	n.mustKsql(`CREATE STREAM clicks (user VARCHAR KEY, page VARCHAR) WITH (KAFKA_TOPIC='clicks', VALUE_FORMAT='JSON', PARTITIONS=2);`)
	earliest := map[string]any{"auto.offset.reset": "earliest"}
	if status, v := n.ksql(`CREATE STREAM eos_copy AS SELECT * FROM clicks;`,
		map[string]any{"auto.offset.reset": "earliest", "processing.guarantee": "exactly_once_v2"}); status != http.StatusOK {
		t.Fatalf("CSAS under exactly_once_v2: %d %v", status, v)
	}
	if status, v := n.ksql(`CREATE STREAM downstream AS SELECT * FROM eos_copy;`, earliest); status != http.StatusOK {
		t.Fatalf("CSAS over the transactional topic: %d %v", status, v)
	}
	n.mustKsql(`CREATE TABLE users (user VARCHAR PRIMARY KEY, name VARCHAR) WITH (KAFKA_TOPIC='users', VALUE_FORMAT='JSON', PARTITIONS=2);`)
	if status, v := n.ksql(`CREATE STREAM named AS SELECT c.user, page, name FROM clicks c LEFT JOIN users u ON c.user = u.user;`, earliest); status != http.StatusOK {
		t.Fatalf("CSAS of a stream–table join: %d %v", status, v)
	}
	produce(t, n.Kafka, "users", "u1", `{"NAME":"ada"}`, "u2", `{"NAME":"bob"}`, "u3", `{"NAME":"cy"}`)
	var kvs []string
	for i := range 10 {
		kvs = append(kvs, fmt.Sprintf("u%d", i), fmt.Sprintf(`{"PAGE":"p%d"}`, i))
	}
	produce(t, n.Kafka, "clicks", kvs...)

	var copyID, downID string
	eventually(t, "every task of both queries at its inputs' end", func() error {
		var copyTasks, downTasks []api.TaskInfo
		copyID, copyTasks = tasksOf(t, n, "CSAS_EOS_COPY")
		downID, downTasks = tasksOf(t, n, "CSAS_DOWNSTREAM")
		sum, err := caughtUp(copyTasks)
		if err != nil {
			return fmt.Errorf("%s: %w", copyID, err)
		}
		if sum != 10 {
			return fmt.Errorf("%s: positions sum to %d, want the 10 records", copyID, sum)
		}
		if sum, err = caughtUp(downTasks); err != nil {
			return fmt.Errorf("%s: %w", downID, err)
		}
		if sum < 10 {
			return fmt.Errorf("%s: positions sum to %d, want the 10 records and the commit markers after them", downID, sum)
		}
		return nil
	})

	status, body := n.get("/metrics")
	if status != http.StatusOK {
		t.Fatalf("GET /metrics: %d", status)
	}
	// Each node of the copy counted the ten records (sqlstream_node_records_total).
	nodes := regexp.MustCompile(`(?m)^sqlstream_node_records_total\{node="([^"]+)",query="`+copyID+`",subtopology="0"\} (\d+)$`).FindAllStringSubmatch(string(body), -1)
	var counted []string
	for _, m := range nodes {
		counted = append(counted, m[1]+"="+m[2])
	}
	if got, want := strings.Join(counted, " "), "Project=10 Sink-EOS_COPY=10 Source-CLICKS=10"; got != want {
		t.Errorf("the copy's node counts: %s, want %s:\n%s", got, want, grepLines(string(body), "sqlstream_node_records_total"))
	}
	// Every node the join query's topology describes counts its records,
	// those inside the join's head too: the three users through the
	// right side's materialization, the ten clicks through the join and
	// on (a LEFT JOIN passes each).
	joinID, _ := tasksOf(t, n, "CSAS_NAMED")
	explain := jsonText(t, n.mustKsql("EXPLAIN "+joinID+";"))
	var described []string
	for _, m := range regexp.MustCompile(`(?:Source|Processor|Sink): ([^ ]+) \(`).FindAllStringSubmatch(explain, -1) {
		described = append(described, m[1])
	}
	want := map[string]string{"Source-USERS": "3", "Join-Right-Materialize": "3", "Source-CLICKS": "10", "Join": "10", "Project": "10", "Sink-NAMED": "10"}
	if len(described) != len(want) {
		t.Fatalf("EXPLAIN %s describes nodes %v, want %d: %s", joinID, described, len(want), explain)
	}
	eventually(t, "every node of the join counted", func() error {
		if status, body = n.get("/metrics"); status != http.StatusOK {
			return fmt.Errorf("GET /metrics: %d", status)
		}
		for _, node := range described {
			m := regexp.MustCompile(`(?m)^sqlstream_node_records_total\{node="` + regexp.QuoteMeta(node) + `",query="` + joinID + `",subtopology="0"\} (\d+)$`).FindStringSubmatch(string(body))
			if m == nil || m[1] != want[node] {
				return fmt.Errorf("node %s of %s: %v, want %s records:\n%s", node, joinID, m, want[node], grepLines(string(body), "sqlstream_node_records_total"))
			}
		}
		return nil
	})
	// The at_least_once query times its commits (the one of those
	// records' offsets may come after the positions are seen); the
	// exactly_once_v2 one its transaction ends instead.
	eventually(t, "the commits timed", func() error {
		if status, body = n.get("/metrics"); status != http.StatusOK {
			return fmt.Errorf("GET /metrics: %d", status)
		}
		if !regexp.MustCompile(`(?m)^sqlstream_query_commit_seconds_count\{query="`+downID+`"\} [1-9]`).Match(body) ||
			!regexp.MustCompile(`(?m)^sqlstream_query_commit_max_seconds\{query="`+downID+`"\} `).Match(body) ||
			strings.Contains(string(body), `sqlstream_query_commit_seconds_count{query="`+copyID+`"}`) ||
			!strings.Contains(string(body), `sqlstream_query_transaction_end_seconds_count{query="`+copyID+`"}`) {
			return fmt.Errorf("commit and transaction-end latencies:\n%s", grepLines(string(body), "sqlstream_query_commit", "sqlstream_query_transaction_end"))
		}
		return nil
	})
	for _, q := range []string{copyID, downID} {
		lags := regexp.MustCompile(`(?m)^sqlstream_task_consumer_lag\{query="`+q+`",task="0_[01]"\} 0$`).FindAllString(string(body), -1)
		if len(lags) != 2 {
			t.Errorf("/metrics has %q for %s, want task 0_0 and 0_1 at lag 0:\n%s", lags, q, grepLines(string(body), "sqlstream_task_consumer_lag"))
		}
	}
}
