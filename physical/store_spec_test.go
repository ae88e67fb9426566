package physical_test

import (
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
)

// TestJoinWindowStoresAreUncached: a stream–stream join's two window
// stores (every key written once) are built without a write-back cache,
// as Kafka Streams builds them; the outer join's shared store and an
// aggregation's store keep theirs.
func TestJoinWindowStoresAreUncached(t *testing.T) {
	p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{})
	for _, ddl := range []string{
		`CREATE STREAM orders (id INT KEY, amount DOUBLE) WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='JSON', PARTITIONS=2);`,
		`CREATE STREAM shipments (id INT KEY, carrier VARCHAR) WITH (KAFKA_TOPIC='shipments', VALUE_FORMAT='JSON', PARTITIONS=2);`,
	} {
		stmts, err := parser.Parse(ddl)
		if err != nil {
			t.Fatal(err)
		}
		src, err := p.CreateSource(stmts[0].(*ast.CreateSource))
		if err != nil {
			t.Fatal(err)
		}
		p.Catalog.Put(src)
	}
	for _, tc := range []struct {
		query string
		want  map[string]bool // store name fragment → uncached
	}{
		{`CREATE STREAM g AS SELECT o.id, amount, carrier FROM orders o LEFT JOIN shipments s WITHIN 1 MINUTE GRACE PERIOD 10 SECONDS ON o.id = s.id;`,
			map[string]bool{"JOINTHIS": true, "OUTEROTHER": true, "OUTERSHARED": false}},
		{`CREATE TABLE n AS SELECT id, COUNT(*) AS c FROM orders GROUP BY id;`,
			map[string]bool{"Aggregate-Materialize": false}},
	} {
		stmts, err := parser.Parse(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := p.PlanCreateAs(stmts[0].(*ast.CreateAsSelect))
		if err != nil {
			t.Fatal(err)
		}
		topo, err := physical.Build(plan, physical.Options{AppID: "app"})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, st := range topo.SubTopologies {
			for _, s := range st.Stores {
				for frag, uncached := range tc.want {
					if strings.Contains(s.Name, frag) {
						seen[frag] = true
						if s.Uncached != uncached {
							t.Errorf("%s: store %s uncached %v, want %v", tc.query, s.Name, s.Uncached, uncached)
						}
					}
				}
			}
		}
		for frag := range tc.want {
			if !seen[frag] {
				t.Errorf("%s: no store named like %s", tc.query, frag)
			}
		}
	}
}
