package runtime

import (
	"strings"
	"testing"
)

// TestStatementBuildsItsQueryOnce: the name check, the offsets and the
// running query share one topology, built once per query a statement
// starts (CREATE … AS SELECT, INSERT INTO, a SOURCE table's CST); a
// statement whose derived names Kafka would refuse builds one and starts
// nothing.
func TestStatementBuildsItsQueryOnce(t *testing.T) {
	e, err := NewTestEngine(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, tc := range []struct {
		sql    string
		builds int
	}{
		{"CREATE STREAM s (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);", 0},
		{"CREATE TABLE agg AS SELECT k, COUNT(*) AS n FROM s GROUP BY k;", 1},
		{"CREATE STREAM copy AS SELECT * FROM s;", 1},
		{"INSERT INTO copy SELECT * FROM s;", 1},
		{"CREATE SOURCE TABLE st (k VARCHAR PRIMARY KEY, v INT) WITH (KAFKA_TOPIC='st', VALUE_FORMAT='JSON', PARTITIONS=1);", 1},
	} {
		before := e.builds()
		if _, err := e.ExecuteStatement(tc.sql, nil); err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		if got := e.builds() - before; got != tc.builds {
			t.Errorf("%s: built %d topologies, want %d", tc.sql, got, tc.builds)
		}
	}
	before, queries := e.builds(), len(e.queries)
	long := "CREATE TABLE " + strings.Repeat("x", 240) + " AS SELECT k, COUNT(*) AS n FROM s GROUP BY k;"
	if _, err := e.ExecuteStatement(long, nil); err == nil || !strings.Contains(err.Error(), "which Kafka refuses") {
		t.Fatalf("a query with a derived name Kafka refuses: %v", err)
	}
	if got := e.builds() - before; got != 1 || len(e.queries) != queries {
		t.Errorf("refused statement: built %d topologies and left %d queries, want 1 and %d", got, len(e.queries), queries)
	}
}

func (t *TestEngine) builds() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.queryBuilds
}
