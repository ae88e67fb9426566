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
// node and topic names. Commands: create (a source), topology (a query),
// compare (a query and its upgrade: CompareState's diff or refusal).
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
				topo, err := build(p, stmts[0])
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				return topo.Describe()
			case "compare":
				// The first statement is a query, the second its upgrade.
				old, err := build(p, stmts[0])
				if err != nil {
					t.Fatal(err)
				}
				next, err := build(p, stmts[1])
				if err != nil {
					t.Fatal(err)
				}
				diff, err := physical.CompareState(old, next)
				if err != nil {
					return "refused: " + err.Error() + "\n"
				}
				return diff.String()
			}
			t.Fatalf("unknown command %s", d.Cmd)
			return ""
		})
	})
}

// build plans and builds one query statement under the application id app.
func build(p *planner.Planner, st ast.Statement) (*physical.Topology, error) {
	var plan *planner.Plan
	var err error
	switch st := st.(type) {
	case *ast.Query:
		plan, err = p.PlanQuery(st)
	case *ast.CreateAsSelect:
		plan, err = p.PlanCreateAs(st)
	case *ast.InsertInto:
		plan, err = p.PlanInsertInto(st)
	}
	if err != nil {
		return nil, err
	}
	return physical.Build(plan, physical.Options{AppID: "app"})
}
