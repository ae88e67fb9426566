package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// routingConfig is the configuration the three servers share: the
// command-topic secret (which also signs inter-node requests), a short
// group session timeout so that a killed server's tasks move soon, and
// frequent lag reports (they carry each server's query states).
const routingConfig = scaleoutConfig + "ksql.streams.session.timeout.ms=6000\nksql.lag.reporting.send.interval.ms=300\n"

// TestPullQueriesFromAnyServer runs `sqlstream broker` and three
// `sqlstream server`s of one service id. A table's six partitions are
// split over the three; a pull query (a scan, and a lookup of every key)
// on any of them returns the whole table, routed to the servers running
// each partition. /clusterStatus on each lists all three hosts alive with
// their partitions, SHOW QUERIES counts the query RUNNING on three hosts,
// and the inter-node endpoints refuse unsigned requests. After kill -9 of
// one server it is marked dead within the heartbeat window (and its query
// UNRESPONSIVE), and once its tasks moved the others answer with the
// whole table again. With one standby replica per task, /clusterStatus
// lists each partition as a standby of one other host with its lag, and
// between the kill and the move (the session timeout) pull queries with
// standby reads on return the whole table from the standbys.
func TestPullQueriesFromAnyServer(t *testing.T) {
	t.Parallel()
	br := startBrokerProcess(t)
	cfg := writeConfig(t, routingConfig+"ksql.streams.num.standby.replicas=1\n")
	nodes := []*node{startServerOn(t, br.Kafka, "--config", cfg), startServerOn(t, br.Kafka, "--config", cfg),
		startServerOn(t, br.Kafka, "--config", cfg)}
	a := nodes[0]
	a.mustKsql(`CREATE STREAM events (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='events', VALUE_FORMAT='JSON', PARTITIONS=6);`)
	status, v := a.ksql(`CREATE TABLE counts AS SELECT k, COUNT(*) AS n FROM events GROUP BY k;`,
		map[string]any{"ksql.streams.auto.offset.reset": "earliest"})
	if status != http.StatusOK {
		t.Fatalf("CTAS: %d %v", status, v)
	}
	// Grouped by a value column: its store is keyed as its repartition
	// topic, not as the source.
	status, v = a.ksql(`CREATE TABLE by_v AS SELECT v, COUNT(*) AS n FROM events GROUP BY v;`,
		map[string]any{"ksql.streams.auto.offset.reset": "earliest"})
	if status != http.StatusOK {
		t.Fatalf("CTAS: %d %v", status, v)
	}
	want, byV := map[string]int{}, map[string]int{}
	var kvs []string
	for i := 0; i < 30; i++ {
		k := fmt.Sprintf("k%02d", i)
		want[k] = i%3 + 1
		for j := 0; j < want[k]; j++ {
			kvs = append(kvs, k, fmt.Sprintf(`{"V":%d}`, j))
			byV[fmt.Sprint(j)]++
		}
	}
	tables := []pulledTable{{"COUNTS", "k", "'", want}, {"BY_V", "v", "", byV}}
	produce(t, br.Kafka, "events", kvs...)

	eventually(t, "every server hosts two of the six partitions, all alive", func() error {
		return checkClusterStatus(nodes, nodes, 6, 2)
	})
	eventually(t, "every partition has one caught-up standby on another server", func() error {
		return checkStandbyStatus(nodes, nodes, 6)
	})
	for _, n := range nodes {
		checkPulls(t, n, tables)
		eventually(t, "SHOW QUERIES on "+n.URL+" counts three RUNNING hosts", func() error {
			return statusCountIs(n, map[string]float64{"RUNNING": 3})
		})
	}
	refusesUnsignedPeers(t, a)

	dead := nodes[2]
	killed := time.Now()
	dead.kill()
	live := nodes[:2]
	eventuallyWithin(t, "the killed server is marked dead", 5*time.Second, func() error {
		for _, n := range live {
			if alive, ok := hostAlive(n, dead); !ok || alive {
				return fmt.Errorf("%s: killed host %s listed %v, alive %v", n.URL, dead.URL, ok, alive)
			}
		}
		return nil
	})
	t.Logf("killed server marked dead %v after kill -9", time.Since(killed).Round(100*time.Millisecond))
	// Until the group moves its tasks (the session timeout), a scan
	// needing them fails clearly rather than answering part of the table.
	switch _, err := pullRows(live[0], "SELECT * FROM COUNTS;"); {
	case err == nil:
		t.Logf("the dead server's tasks had moved already")
	case strings.Contains(err.Error(), "is not alive, and standby reads are off"), strings.Contains(err.Error(), "is being reassigned"):
		t.Logf("scan while the dead server still owns partitions: %v", err)
	default:
		t.Fatalf("scan while the dead server still owns partitions: %v", err)
	}
	for _, n := range live {
		if err := scanFromStandbys(n, tables); err != nil {
			t.Fatalf("standby reads %s after kill -9: %v", sinceKill(killed), err)
		}
	}
	if owns, err := stillOwns(live[0], dead); err != nil || !owns {
		t.Fatalf("the tasks had moved (or /clusterStatus failed: %v) by the end of the standby reads, %s after kill -9: they did not test standbys", err, sinceKill(killed))
	}
	t.Logf("standby reads returned the whole tables on both live servers %s after kill -9, before the tasks moved", sinceKill(killed))
	for _, n := range live {
		eventually(t, "SHOW QUERIES on "+n.URL+" counts the dead host UNRESPONSIVE", func() error {
			return statusCountIs(n, map[string]float64{"RUNNING": 2, "UNRESPONSIVE": 1})
		})
	}
	eventually(t, "the two live servers host three partitions each", func() error {
		return checkClusterStatus(live, live, 6, 3)
	})
	t.Logf("tasks moved %v after kill -9", time.Since(killed).Round(100*time.Millisecond))
	for _, n := range live {
		checkPulls(t, n, tables)
	}
}

// pullRows runs a pull query on n (/query-stream, delimited) and returns
// its rows, or the error the server answered with.
func pullRows(n *node, sql string) ([][]any, error) { return pullRowsAs(n, sql) }

// pullRowsAs is pullRows with basic credentials (user, password) if
// given.
func pullRowsAs(n *node, sql string, cred ...string) ([][]any, error) {
	return pullRowsWith(n, sql, nil, cred...)
}

// pullRowsWith is pullRowsAs with request properties.
func pullRowsWith(n *node, sql string, props map[string]any, cred ...string) ([][]any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	defer cancel()
	body := map[string]any{"sql": sql}
	if props != nil {
		body["properties"] = props
	}
	req := n.newRequest(ctx, "/query-stream", "application/vnd.ksqlapi.delimited.v1", body)
	if len(cred) == 2 {
		req.SetBasicAuth(cred[0], cred[1])
	}
	resp, err := httpClient().Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %d %s", sql, resp.StatusCode, buf.String())
	}
	var rows [][]any
	sc := bufio.NewScanner(&buf)
	for i := 0; sc.Scan(); i++ {
		line := bytes.TrimSpace(sc.Bytes())
		if i == 0 || len(line) == 0 {
			continue
		}
		if line[0] == '{' {
			return nil, fmt.Errorf("%s: %s", sql, line)
		}
		var row []any
		if err := json.Unmarshal(line, &row); err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// asCounts turns (K, N) rows into a map, failing on a duplicate key.
func asCounts(rows [][]any) (map[string]int, error) {
	got := map[string]int{}
	for _, r := range rows {
		k := fmt.Sprint(r[0])
		if _, dup := got[k]; dup {
			return nil, fmt.Errorf("key %s answered twice", k)
		}
		n, _ := r[1].(float64)
		got[k] = int(n)
	}
	return got, nil
}

// pulledTable is a table the test pulls from: its key column, how its
// key literals are quoted and its expected rows (key → count).
type pulledTable struct {
	name, key, quote string
	want             map[string]int
}

// checkPulls checks that a scan of each table on n returns it whole
// (waiting for the servers to process the input), then that looking
// every key up returns its row.
func checkPulls(t *testing.T, n *node, tables []pulledTable) {
	t.Helper()
	for _, tb := range tables {
		eventually(t, "a scan of "+tb.name+" on "+n.URL+" returns the whole table", func() error { return scanMatches(n, tb) })
		if err := lookupsMatch(n, tb); err != nil {
			t.Fatal(err)
		}
	}
}

func scanMatches(n *node, tb pulledTable) error {
	want := tb.want
	rows, err := pullRows(n, "SELECT * FROM "+tb.name+";")
	if err != nil {
		return err
	}
	got, err := asCounts(rows)
	if err != nil {
		return err
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		return fmt.Errorf("%s scanned %d rows %v, want %d %v", n.URL, len(got), got, len(want), want)
	}
	return nil
}

// lookupsMatch looks every key up on n, one by one and in one IN list.
func lookupsMatch(n *node, tb pulledTable) error {
	want := tb.want
	var keys []string
	for k, c := range want {
		lit := tb.quote + k + tb.quote
		keys = append(keys, lit)
		rows, err := pullRows(n, fmt.Sprintf("SELECT %s, n FROM %s WHERE %s = %s;", tb.key, tb.name, tb.key, lit))
		if err != nil {
			return err
		}
		if got, err := asCounts(rows); err != nil || len(got) != 1 || got[k] != c {
			return fmt.Errorf("%s: lookup of %s: %v (%v), want %d", n.URL, k, rows, err, c)
		}
	}
	rows, err := pullRows(n, fmt.Sprintf("SELECT %s, n FROM %s WHERE %s IN (%s);", tb.key, tb.name, tb.key, strings.Join(keys, ", ")))
	if err != nil {
		return err
	}
	if got, err := asCounts(rows); err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		return fmt.Errorf("%s: IN lookup of every key: %v (%v)", n.URL, got, err)
	}
	return nil
}

// clusterStatus is GET /clusterStatus on n.
type clusterStatus struct {
	ClusterStatus map[string]struct {
		HostAlive     bool `json:"hostAlive"`
		HostStoreLags struct {
			UpdateTimeMs int64 `json:"updateTimeMs"`
		} `json:"hostStoreLags"`
		ActiveStandbyPerQuery map[string]struct {
			ActiveStores     []string `json:"activeStores"`
			ActivePartitions []struct {
				Topic     string `json:"topic"`
				Partition int    `json:"partition"`
			} `json:"activePartitions"`
		} `json:"activeStandbyPerQuery"`
	} `json:"clusterStatus"`
}

func getClusterStatus(n *node, cred ...string) (clusterStatus, error) {
	var cs clusterStatus
	req, err := http.NewRequest(http.MethodGet, n.URL+"/clusterStatus", nil)
	if err != nil {
		return cs, err
	}
	if len(cred) == 2 {
		req.SetBasicAuth(cred[0], cred[1])
	}
	resp, err := httpClient().Do(req)
	if err != nil {
		return cs, err
	}
	defer resp.Body.Close()
	return cs, json.NewDecoder(resp.Body).Decode(&cs)
}

func hostOf(n *node) string {
	u, _ := url.Parse(n.URL)
	return u.Host
}

// checkClusterStatus checks /clusterStatus on every one of askers: each
// of hosts is listed alive, with store lags (its own, or from its lag
// reports), and runs per partitions of the source topic (every one of
// total exactly once over the hosts).
func checkClusterStatus(askers, hosts []*node, total, per int) error {
	for _, n := range askers {
		cs, err := getClusterStatus(n)
		if err != nil {
			return err
		}
		var all []int
		for _, h := range hosts {
			st, ok := cs.ClusterStatus[hostOf(h)]
			if !ok || !st.HostAlive || st.HostStoreLags.UpdateTimeMs == 0 {
				return fmt.Errorf("%s: host %s listed %v alive %v lags of %d: %+v", n.URL, hostOf(h), ok, st.HostAlive, st.HostStoreLags.UpdateTimeMs, cs)
			}
			var mine []int
			for id, q := range st.ActiveStandbyPerQuery {
				if !strings.HasPrefix(id, "CTAS_COUNTS_") {
					continue
				}
				for _, p := range q.ActivePartitions {
					if p.Topic == "events" {
						mine = append(mine, p.Partition)
					}
				}
				if !slices.Contains(q.ActiveStores, "Aggregate-Aggregate-Materialize") {
					return fmt.Errorf("%s: host %s stores %v", n.URL, hostOf(h), q.ActiveStores)
				}
			}
			if len(mine) != per {
				return fmt.Errorf("%s: host %s runs partitions %v, want %d of them", n.URL, hostOf(h), mine, per)
			}
			all = append(all, mine...)
		}
		slices.Sort(all)
		if len(slices.Compact(all)) != total || len(all) != total {
			return fmt.Errorf("%s: partitions over the hosts %v, want each of %d once", n.URL, all, total)
		}
	}
	return nil
}

// hostAlive is h's hostAlive in n's /clusterStatus.
func hostAlive(n, h *node) (alive, listed bool) {
	cs, err := getClusterStatus(n)
	if err != nil {
		return false, false
	}
	st, ok := cs.ClusterStatus[hostOf(h)]
	return st.HostAlive, ok
}

// statusCountIs checks the statusCount of every query in SHOW QUERIES.
func statusCountIs(n *node, want map[string]float64) error {
	_, raw := n.post("/ksql", "application/vnd.ksql.v1+json", map[string]any{"ksql": "SHOW QUERIES;"})
	var ents []struct {
		Queries []struct {
			ID          string             `json:"id"`
			StatusCount map[string]float64 `json:"statusCount"`
		} `json:"queries"`
	}
	if err := json.Unmarshal(raw, &ents); err != nil || len(ents) != 1 || len(ents[0].Queries) != 2 {
		return fmt.Errorf("SHOW QUERIES on %s: %s", n.URL, raw)
	}
	for _, q := range ents[0].Queries {
		if fmt.Sprint(q.StatusCount) != fmt.Sprint(want) {
			return fmt.Errorf("SHOW QUERIES on %s: %s statusCount %v, want %v", n.URL, q.ID, q.StatusCount, want)
		}
	}
	return nil
}

// refusesUnsignedPeers checks that the inter-node endpoints refuse what
// does not come from a peer: a heartbeat, a lag report and a forwarded
// pull query without (or with a forged) signature.
func refusesUnsignedPeers(t *testing.T, n *node) {
	t.Helper()
	for _, c := range []struct {
		path, sig string
		body      any
	}{
		{"/heartbeat", "", map[string]any{"hostInfo": map[string]any{"host": "127.0.0.1", "port": 1}, "timestamp": 1}},
		{"/lag", "", map[string]any{"hostInfo": map[string]any{"host": "127.0.0.1", "port": 1}}},
		{"/query-stream", fmt.Sprintf("%d:%s", time.Now().UnixMilli(), strings.Repeat("ab", 32)), map[string]any{"sql": "SELECT * FROM COUNTS;",
			"requestProperties": map[string]any{"request.ksql.query.pull.skip.forwarding": true, "request.ksql.query.pull.partitions": "0"}}},
	} {
		req := n.newRequest(context.Background(), c.path, "application/json", c.body)
		if c.sig != "" {
			req.Header.Set("X-Sqlstream-Peer", c.sig)
		}
		resp, err := httpClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(buf.String(), "40005") {
			t.Errorf("POST %s without a peer's signature: %d %s", c.path, resp.StatusCode, buf.String())
		}
	}
}

// TestPullRoutingWithBasicAuth runs two servers with
// authentication.method=BASIC: heartbeats pass between them without user
// credentials (they are signed), both list each other alive, and a pull
// query on either returns the whole table, the part forwarded to the
// other server carrying the user's credentials.
func TestPullRoutingWithBasicAuth(t *testing.T) {
	t.Parallel()
	users := filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(users, []byte("alice: wonderland,admin\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	br := startBrokerProcess(t)
	cfg := writeConfig(t, routingConfig+"authentication.method=BASIC\nsqlstream.authentication.users.file="+users+"\n")
	nodes := []*node{startServerOn(t, br.Kafka, "--config", cfg), startServerOn(t, br.Kafka, "--config", cfg)}
	ksql := func(sql string) {
		req := nodes[0].newRequest(context.Background(), "/ksql", "application/json",
			map[string]any{"ksql": sql, "streamsProperties": map[string]any{"ksql.streams.auto.offset.reset": "earliest"}})
		req.SetBasicAuth("alice", "wonderland")
		resp, err := httpClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", sql, resp.StatusCode, buf.String())
		}
	}
	ksql(`CREATE STREAM events (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='events', VALUE_FORMAT='JSON', PARTITIONS=4);`)
	ksql(`CREATE TABLE latest AS SELECT k, LATEST_BY_OFFSET(v) AS v FROM events GROUP BY k;`)
	want := map[string]int{}
	var kvs []string
	for i := 0; i < 20; i++ {
		k := fmt.Sprintf("k%02d", i)
		want[k] = i
		kvs = append(kvs, k, fmt.Sprintf(`{"V":%d}`, i))
	}
	produce(t, br.Kafka, "events", kvs...)
	for _, n := range nodes {
		eventually(t, "both servers alive on "+n.URL, func() error {
			cs, err := getClusterStatus(n, "alice", "wonderland")
			if err != nil {
				return err
			}
			for _, h := range nodes {
				st, ok := cs.ClusterStatus[hostOf(h)]
				if !ok || !st.HostAlive || len(st.ActiveStandbyPerQuery) != 1 {
					return fmt.Errorf("host %s in %+v", hostOf(h), cs)
				}
			}
			return nil
		})
		eventually(t, "alice's scan on "+n.URL+" returns the whole table", func() error {
			rows, err := pullRowsAs(n, "SELECT * FROM latest;", "alice", "wonderland")
			if err != nil {
				return err
			}
			got, err := asCounts(rows)
			if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
				return fmt.Errorf("%v (%v), want %v", got, err, want)
			}
			return nil
		})
	}
	if _, err := pullRowsAs(nodes[1], "SELECT * FROM latest;"); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("a pull query without credentials: %v", err)
	}
}
