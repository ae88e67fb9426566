package tests

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// clusterTasks is GET /clusterTasks' answer, as far as these tests read it.
type clusterTasks struct {
	Hosts []struct {
		Host    string `json:"host"`
		Self    bool   `json:"self"`
		Error   string `json:"error"`
		Queries []struct {
			QueryID   string `json:"queryId"`
			Processed int64  `json:"recordsProcessed"`
			Nodes     []struct {
				Node    string `json:"node"`
				Records int64  `json:"records"`
			} `json:"nodes"`
			Tasks []struct {
				TaskID string `json:"taskId"`
				Role   string `json:"role"`
				State  string `json:"state"`
				Stores []struct {
					Store string `json:"store"`
					Keys  int64  `json:"keys"`
				} `json:"stores"`
			} `json:"tasks"`
		} `json:"queries"`
	} `json:"hosts"`
}

// getClusterTasks reads GET /clusterTasks of n as user:password.
func getClusterTasks(n *node, user, password string) (int, clusterTasks, string) {
	n.t.Helper()
	var ct clusterTasks
	code, body := getAs(n, "/clusterTasks", user, password, &ct)
	return code, ct, body
}

// getAs reads GET path of n as user:password (none when user is empty)
// and, when it answers 200, decodes its JSON into v; it returns the
// status and the body.
func getAs(n *node, path, user, password string, v any) (int, string) {
	n.t.Helper()
	req, err := http.NewRequest(http.MethodGet, n.URL+path, nil)
	if err != nil {
		n.t.Fatal(err)
	}
	if user != "" {
		req.SetBasicAuth(user, password)
	}
	resp, err := httpClient().Do(req)
	if err != nil {
		n.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(body, v); err != nil {
			n.t.Fatalf("GET %s: %v in %s", path, err, body)
		}
	}
	return resp.StatusCode, string(body)
}

// TestClusterTasksEveryHost runs two servers of one service id with
// BASIC authentication on. GET /clusterTasks on either gives both hosts'
// tasks of the query, the other host's asked as a peer with the user's
// credentials (without them the peer would refuse): every task active on
// exactly one host, each host's node records adding up to the records
// produced, and the active copies' store keys to the distinct keys.
// GET /clusterMetrics gives both hosts' engine metrics the same way.
// After kill -9 of one server the other marks it as not answering in
// both and still gives its own.
func TestClusterTasksEveryHost(t *testing.T) {
	t.Parallel()
	users := filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(users, []byte("alice: wonderland,admin\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	br := startBrokerProcess(t)
	cfg := writeConfig(t, routingConfig+"authentication.method=BASIC\nsqlstream.authentication.users.file="+users+"\n")
	a, b := startServerOn(t, br.Kafka, "--config", cfg), startServerOn(t, br.Kafka, "--config", cfg)
	for _, sql := range []string{
		`CREATE STREAM events (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='events', VALUE_FORMAT='JSON', PARTITIONS=4);`,
		`CREATE TABLE counts AS SELECT k, COUNT(*) AS n FROM events GROUP BY k;`,
	} {
		if status, body := postAs(t, a, sql); status != http.StatusOK {
			t.Fatalf("%s: %d %s", sql, status, body)
		}
	}
	if status, _, _ := getClusterTasks(a, "", ""); status != http.StatusUnauthorized {
		t.Errorf("GET /clusterTasks without credentials: %d, want 401", status)
	}
	hosts := map[string]bool{hostOf(a): true, hostOf(b): true}
	// Both servers run a share of the four tasks before any record goes in.
	eventually(t, "both hosts with active tasks", func() error {
		_, ct, body := getClusterTasks(b, "alice", "wonderland")
		active := map[string]string{}
		for _, h := range ct.Hosts {
			if h.Error != "" {
				return fmt.Errorf("%s: %s", h.Host, h.Error)
			}
			for _, q := range h.Queries {
				for _, task := range q.Tasks {
					if task.Role == "ACTIVE" && task.State == "RUNNING" {
						if other, dup := active[task.TaskID]; dup {
							return fmt.Errorf("task %s active on %s and %s", task.TaskID, other, h.Host)
						}
						active[task.TaskID] = h.Host
					}
				}
			}
		}
		owners := map[string]bool{}
		for _, h := range active {
			owners[h] = true
		}
		if len(ct.Hosts) != 2 || !ct.Hosts[0].Self || len(active) != 4 || len(owners) != 2 || !hosts[ct.Hosts[1].Host] {
			return fmt.Errorf("hosts and tasks: %s", body)
		}
		return nil
	})
	var kvs []string
	for i := range 12 {
		kvs = append(kvs, fmt.Sprintf("k%02d", i%6), `{"V":1}`)
	}
	produce(t, br.Kafka, "events", kvs...)
	eventually(t, "every host's figures add up", func() error {
		_, ct, body := getClusterTasks(a, "alice", "wonderland")
		var source, processed, keys int64
		for _, h := range ct.Hosts {
			for _, q := range h.Queries {
				if !strings.HasPrefix(q.QueryID, "CTAS_COUNTS") {
					continue
				}
				processed += q.Processed
				for _, n := range q.Nodes {
					if n.Node == "Source-EVENTS" {
						source += n.Records
					}
				}
				for _, task := range q.Tasks {
					for _, s := range task.Stores {
						if task.Role == "ACTIVE" {
							keys += s.Keys
						}
					}
				}
			}
		}
		if len(ct.Hosts) != 2 || source != 12 || processed != 12 || keys != 6 {
			return fmt.Errorf("source %d, processed %d, keys %d over hosts: %s", source, processed, keys, body)
		}
		return nil
	})
	// GET /clusterMetrics: both hosts' engine metrics, the other's asked
	// as a peer with alice's credentials; their records processed add up
	// to the records produced, and each host's answer is the engine's
	// families alone.
	if status, _, _ := getClusterMetrics(a, "", ""); status != http.StatusUnauthorized {
		t.Errorf("GET /clusterMetrics without credentials: %d, want 401", status)
	}
	eventually(t, "every host's metrics add up", func() error {
		_, cm, body := getClusterMetrics(a, "alice", "wonderland")
		var processed, out float64
		for _, h := range cm.Hosts {
			if h.Error != "" || strings.Contains(h.Metrics, "go_goroutines") || strings.Contains(h.Metrics, "sqlstream_http_") {
				return fmt.Errorf("%s: %s", h.Host, body)
			}
			processed += sampleSum(h.Metrics, "sqlstream_query_records_processed_total", "CTAS_COUNTS")
			out += sampleSum(h.Metrics, "sqlstream_query_records_out_total", "CTAS_COUNTS")
		}
		if len(cm.Hosts) != 2 || !cm.Hosts[0].Self || cm.Hosts[1].Host != hostOf(b) || processed != 12 || out < 6 {
			return fmt.Errorf("processed %v, out %v over hosts: %s", processed, out, body)
		}
		return nil
	})

	b.kill()
	eventually(t, "the killed host marked", func() error {
		_, ct, body := getClusterTasks(a, "alice", "wonderland")
		if len(ct.Hosts) != 2 || ct.Hosts[1].Host != hostOf(b) || ct.Hosts[1].Error == "" || len(ct.Hosts[0].Queries) == 0 {
			return fmt.Errorf("after the kill: %s", body)
		}
		_, cm, body := getClusterMetrics(a, "alice", "wonderland")
		if len(cm.Hosts) != 2 || cm.Hosts[1].Error == "" || cm.Hosts[1].Metrics != "" || sampleSum(cm.Hosts[0].Metrics, "sqlstream_query_records_processed_total", "CTAS_COUNTS") == 0 {
			return fmt.Errorf("metrics after the kill: %s", body)
		}
		return nil
	})
}

// clusterMetrics is GET /clusterMetrics' answer.
type clusterMetrics struct {
	Hosts []struct {
		Host    string `json:"host"`
		Self    bool   `json:"self"`
		Error   string `json:"error"`
		Metrics string `json:"metrics"`
	} `json:"hosts"`
}

// getClusterMetrics reads GET /clusterMetrics of n as user:password.
func getClusterMetrics(n *node, user, password string) (int, clusterMetrics, string) {
	n.t.Helper()
	var cm clusterMetrics
	code, body := getAs(n, "/clusterMetrics", user, password, &cm)
	return code, cm, body
}

// sampleSum sums the samples of metric name whose query label starts
// with query in Prometheus' text format.
func sampleSum(text, name, query string) float64 {
	var sum float64
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(line, name+`{query="`+query)
		if !ok {
			continue
		}
		var v float64
		if _, err := fmt.Sscan(rest[strings.LastIndexByte(rest, ' ')+1:], &v); err == nil {
			sum += v
		}
	}
	return sum
}

// postAs runs a statement on n as alice.
func postAs(t *testing.T, n *node, sql string) (int, string) {
	t.Helper()
	req := n.newRequest(t.Context(), "/ksql", "application/json", map[string]any{"ksql": sql})
	req.SetBasicAuth("alice", "wonderland")
	resp, err := httpClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}
