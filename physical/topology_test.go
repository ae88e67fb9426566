package physical_test

import (
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
)

// TestTopology pins the topology descriptions EXPLAIN prints, including
// node and topic names. Commands: create (a source), topology (a query).
func TestTopology(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{})
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			stmts, err := parser.Parse(d.Input)
			if err != nil {
				t.Fatal(err)
			}
			switch d.Cmd {
			case "create":
				src, err := p.CreateSource(stmts[0].(*ast.CreateSource))
				if err != nil {
					t.Fatal(err)
				}
				p.Catalog.Put(src)
				return "ok\n"
			case "topology":
				var plan *planner.Plan
				switch st := stmts[0].(type) {
				case *ast.Query:
					plan, err = p.PlanQuery(st)
				case *ast.CreateAsSelect:
					plan, err = p.PlanCreateAs(st)
				case *ast.InsertInto:
					plan, err = p.PlanInsertInto(st)
				}
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				topo, err := physical.Build(plan, physical.Options{AppID: "app"})
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				return topo.Describe()
			}
			t.Fatalf("unknown command %s", d.Cmd)
			return ""
		})
	})
}
