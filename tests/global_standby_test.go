package tests

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestGlobalJoinStandbyReads: a table whose query joins a global table
// runs inside the global stores' runner, and its standbys are still seen
// by /clusterStatus and by pull routing. Two `sqlstream server`s with one
// standby per task: each lists the other's partitions as its standbys,
// caught up; after kill -9 of one, before its tasks move, a pull query
// with standby reads on the survivor returns the whole table from its
// own standbys. Before, such a query's replicas were invisible: the
// survivor answered that the partitions had no live standby.
func TestGlobalJoinStandbyReads(t *testing.T) {
	br := startBrokerProcess(t)
	cfg := writeConfig(t, routingConfig+"ksql.streams.num.standby.replicas=1\n")
	nodes := []*node{startServerOn(t, br.Kafka, "--config", cfg), startServerOn(t, br.Kafka, "--config", cfg)}
	a := nodes[0]
	a.mustKsql(`CREATE STREAM events (k VARCHAR KEY, r VARCHAR) WITH (KAFKA_TOPIC='events', VALUE_FORMAT='JSON', PARTITIONS=4);
	  CREATE GLOBAL TABLE regions (id VARCHAR PRIMARY KEY, name VARCHAR) WITH (KAFKA_TOPIC='regions', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	produce(t, br.Kafka, "regions", "r1", `{"NAME":"north"}`)
	status, v := a.ksql(`CREATE TABLE counts AS SELECT e.k, COUNT(*) AS n FROM events e JOIN regions g ON e.r = g.id GROUP BY e.k;`,
		map[string]any{"ksql.streams.auto.offset.reset": "earliest"})
	if status != http.StatusOK {
		t.Fatalf("CTAS: %d %v", status, v)
	}
	want := map[string]int{}
	var kvs []string
	for i := 0; i < 20; i++ {
		k := fmt.Sprintf("k%02d", i)
		want[k] = i%2 + 1
		for j := 0; j < want[k]; j++ {
			kvs = append(kvs, k, `{"R":"r1"}`)
		}
	}
	produce(t, br.Kafka, "events", kvs...)
	tables := []pulledTable{{"COUNTS", "k", "'", want}}
	for _, n := range nodes {
		checkPulls(t, n, tables)
	}
	eventually(t, "every partition has one caught-up standby on the other server", func() error {
		return checkStandbyStatus(nodes, nodes, 4)
	})

	dead, live := nodes[1], nodes[0]
	killed := time.Now()
	dead.kill()
	eventuallyWithin(t, "the killed server is marked dead", 5*time.Second, func() error {
		if alive, ok := hostAlive(live, dead); !ok || alive {
			return fmt.Errorf("killed host %s listed %v, alive %v", dead.URL, ok, alive)
		}
		return nil
	})
	if err := scanFromStandbys(live, tables); err != nil {
		if strings.Contains(err.Error(), "no live standby") {
			t.Fatalf("the survivor does not see its own standbys of a global-join query, %s after kill -9: %v", sinceKill(killed), err)
		}
		t.Fatalf("standby reads %s after kill -9: %v", sinceKill(killed), err)
	}
	if owns, err := stillOwns(live, dead); err != nil || !owns {
		t.Fatalf("the tasks had moved (or /clusterStatus failed: %v) by the end of the standby reads, %s after kill -9: they did not test standbys", err, sinceKill(killed))
	}
	t.Logf("standby reads returned the whole table %s after kill -9, before the tasks moved", sinceKill(killed))
}
