package planner_test

import (
	"testing"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
)

// TestForeignKeyJoinReformatsRegistryKeyedRight: a foreign-key join's
// right table keyed in a registry format is reformatted into the left's
// key format (physical/testdata/join_key_format pins the topology); one
// keyed in KAFKA is not, nor is any under LegacyRegistryJoinSteps (commands
// recorded before).
func TestForeignKeyJoinReformatsRegistryKeyedRight(t *testing.T) {
	for _, c := range []struct {
		rightFormat string
		legacy      bool
		want        bool
	}{{"AVRO", false, true}, {"AVRO", true, false}, {"KAFKA", false, false}} {
		reg := &subjects{schemas: map[string]format.RegisteredSchema{}}
		p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{SchemaRegistry: reg, LegacyRegistryJoinSteps: c.legacy})
		for _, sql := range []string{
			`CREATE TABLE l (id BIGINT PRIMARY KEY, fk BIGINT) WITH (KAFKA_TOPIC='l', KEY_FORMAT='AVRO', VALUE_FORMAT='JSON', PARTITIONS=2);`,
			`CREATE TABLE r (id BIGINT PRIMARY KEY, v INT) WITH (KAFKA_TOPIC='r', KEY_FORMAT='` + c.rightFormat + `', VALUE_FORMAT='JSON', PARTITIONS=2);`,
		} {
			_, src, err := createSource(t, p, sql)
			if err != nil {
				t.Fatal(err)
			}
			p.Catalog.Put(src)
		}
		stmts, err := parser.Parse(`CREATE TABLE o AS SELECT l.id, v FROM l JOIN r ON l.fk = r.id;`)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := p.PlanCreateAs(stmts[0].(*ast.CreateAsSelect))
		if err != nil {
			t.Fatal(err)
		}
		if got := plan.Join.Right.Reformat; got != c.want {
			t.Errorf("right key %s, legacy %v: Reformat %v, want %v", c.rightFormat, c.legacy, got, c.want)
		}
	}
}
