package tests

import (
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/sr/srfake"
)

// TestPullLookupAsksItsKeysPartition: a key lookup on a table grouped by
// a value column (its store fed by a GROUP BY repartition topic in the
// source's key format: AVRO with the topic's own schema id, and JSON)
// asks only the partition holding its key. Two servers of one service
// id split the four partitions; every key is found from both. Then one
// server is killed: while the group still gives it its partitions (a
// long session timeout, checked in /clusterStatus before and after), the
// live server answers the lookups of the keys it holds, which it could
// not if a lookup asked every partition, and fails those of the dead
// server's keys.
func TestPullLookupAsksItsKeysPartition(t *testing.T) {
	br := startBrokerProcess(t)
	fake := srfake.New()
	t.Cleanup(fake.Close)
	cfg := writeConfig(t, scaleoutConfig+"ksql.streams.session.timeout.ms=60000\nksql.schema.registry.url="+fake.URL()+"\n")
	a, b := startServerOn(t, br.Kafka, "--config", cfg), startServerOn(t, br.Kafka, "--config", cfg)
	var tables []pulledTable
	for _, f := range []string{"AVRO", "JSON"} {
		name := "BY_S_" + f
		a.mustKsql(fmt.Sprintf(`CREATE STREAM ev_%s (k VARCHAR KEY, s VARCHAR) WITH (KAFKA_TOPIC='ev_%s', KEY_FORMAT='%s', VALUE_FORMAT='%s', PARTITIONS=4);`, f, f, f, f))
		status, v := a.ksql(fmt.Sprintf(`CREATE TABLE %s AS SELECT s, COUNT(*) AS n FROM ev_%s GROUP BY s;`, name, f),
			map[string]any{"ksql.streams.auto.offset.reset": "earliest"})
		if status != 200 {
			t.Fatalf("CTAS %s: %d %v", name, status, v)
		}
		want := map[string]int{}
		var inserts strings.Builder
		for i := 0; i < 24; i++ {
			g := fmt.Sprintf("g%02d", i)
			want[g] = i%3 + 1
			for j := 0; j < want[g]; j++ {
				fmt.Fprintf(&inserts, "INSERT INTO ev_%s (k, s) VALUES ('k%d', '%s');\n", f, j, g)
			}
		}
		a.mustKsql(inserts.String())
		tables = append(tables, pulledTable{name, "s", "'", want})
	}
	eventually(t, "both servers run partitions of both tables", func() error {
		for _, tb := range tables {
			for _, n := range []*node{a, b} {
				if parts, err := activeOf(a, n, "CTAS_"+tb.name+"_"); err != nil || parts == 0 {
					return fmt.Errorf("%s runs %d partitions of %s (%v)", n.URL, parts, tb.name, err)
				}
			}
		}
		return nil
	})
	for _, n := range []*node{a, b} {
		checkPulls(t, n, tables)
	}

	b.kill()
	for _, tb := range tables {
		stillB := func() {
			if parts, err := activeOf(a, b, "CTAS_"+tb.name+"_"); err != nil || parts == 0 {
				t.Fatalf("the killed server's partitions of %s moved (%v) before the lookups ended: they prove nothing", tb.name, err)
			}
		}
		stillB()
		var found, failed int
		for k, c := range tb.want {
			rows, err := pullRows(a, fmt.Sprintf("SELECT s, n FROM %s WHERE s = '%s';", tb.name, k))
			if err != nil {
				failed++
				continue
			}
			if got, err := asCounts(rows); err != nil || len(got) != 1 || got[k] != c {
				t.Fatalf("lookup of %s in %s on the live server: %v (%v), want %d", k, tb.name, rows, err, c)
			}
			found++
		}
		stillB()
		if found == 0 || failed == 0 {
			t.Fatalf("%s with one of two servers dead: %d keys found, %d lookups failed; want some of each (a lookup asking every partition fails them all)", tb.name, found, failed)
		}
		t.Logf("%s: %d keys found on the live server, %d on the dead one", tb.name, found, failed)
	}
}

// activeOf counts the active partitions host h runs of the query whose
// id starts with prefix, as n's /clusterStatus lists them.
func activeOf(n, h *node, prefix string) (int, error) {
	cs, err := getClusterStatus(n)
	if err != nil {
		return 0, err
	}
	parts := 0
	for id, q := range cs.ClusterStatus[hostOf(h)].ActiveStandbyPerQuery {
		if strings.HasPrefix(id, prefix) {
			parts += len(q.ActivePartitions)
		}
	}
	return parts, nil
}
