package tests

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestUpgradeAsksSubjectCompatibility: CREATE OR REPLACE of an
// aggregation in JSON_SR that drops an aggregate (its HAVING's SUM)
// writes a new schema under its store's changelog subject; with that subject set to FULL
// (PUT /config/<subject> on the embedded registry) a property removed
// from an open content model is not FORWARD compatible, so the upgrade
// is refused naming the subject and the rule, and the query keeps
// running; once the subject is BACKWARD, the same upgrade goes through.
func TestUpgradeAsksSubjectCompatibility(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	n.mustKsql(`CREATE STREAM s (k STRING KEY, x BIGINT, g STRING) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON_SR', PARTITIONS=1);
	  INSERT INTO s (k, x, g) VALUES ('a', 5, 'g1');
	  SET 'auto.offset.reset'='earliest';
	  CREATE TABLE t AS SELECT g, COUNT(*) AS n FROM s GROUP BY g HAVING SUM(x) > 0;`)
	url := registryURL(t, n)
	cl := registryClient(t, url)
	var subject string
	eventually(t, "the aggregate store's changelog subject", func() error {
		subjects, err := cl.Subjects(timeoutCtx(t))
		if err != nil {
			return err
		}
		for _, s := range subjects {
			if strings.Contains(s, "CTAS_T_") && strings.HasSuffix(s, "-Aggregate-Aggregate-Materialize-changelog-value") {
				subject = s
				return nil
			}
		}
		return fmt.Errorf("no store subject among %v", subjects)
	})
	setLevel := func(level string) {
		t.Helper()
		if status, body := plainHTTP(t, http.MethodPut, url+"/config/"+subject, `{"compatibility":"`+level+`"}`); status != http.StatusOK {
			t.Fatalf("PUT /config/%s: %d %v", subject, status, body)
		}
	}
	setLevel("FULL")
	const upgrade = `CREATE OR REPLACE TABLE t AS SELECT g, COUNT(*) AS n FROM s GROUP BY g;`
	status, v := n.ksql(upgrade, map[string]any{"auto.offset.reset": "earliest"})
	msg := fmt.Sprint(v)
	if status == http.StatusOK || !strings.Contains(msg, subject) || !strings.Contains(msg, "FULL") {
		t.Fatalf("the upgrade under FULL answered %d: %v; want a refusal naming %s and FULL", status, v, subject)
	}
	eventually(t, "the old query's count", func() error {
		rows, err := pullRows(n, "SELECT * FROM t WHERE g = 'g1';")
		if err != nil {
			return err
		}
		if len(rows) != 1 || !strings.Contains(fmt.Sprint(rows[0]), "1") {
			return fmt.Errorf("rows %v", rows)
		}
		return nil
	})
	setLevel("BACKWARD")
	if status, v := n.ksql(upgrade, map[string]any{"auto.offset.reset": "earliest"}); status != http.StatusOK {
		t.Fatalf("the upgrade under BACKWARD answered %d: %v", status, v)
	}
}
