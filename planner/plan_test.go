package planner_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// TestPlan pins the logical plans EXPLAIN prints. Commands:
//
//	create   CREATE STREAM/TABLE … (adds the source to the catalog)
//	plan     a SELECT, CREATE … AS SELECT or INSERT INTO: prints the plan
//	         and the output schema, or the error with its caret
//	upgrade  two CREATE … AS SELECT, the running query's and its CREATE OR
//	         REPLACE: prints CheckQueryUpgrade's report or refusal
func TestPlan(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		if filepath.Base(path) == "validations" {
			return // TestValidations' table
		}
		p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{})
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			stmts, err := parser.Parse(d.Input)
			if err != nil {
				return renderErr(err, d.Input)
			}
			switch d.Cmd {
			case "create":
				src, err := p.CreateSource(stmts[0].(*ast.CreateSource))
				if err != nil {
					return renderErr(err, d.Input)
				}
				p.Catalog.Put(src)
				return "ok\n"
			case "plan":
				return planText(p, stmts[0], d.Input)
			case "upgrade":
				return upgradeText(p, stmts, d.Input)
			}
			t.Fatalf("unknown command %s", d.Cmd)
			return ""
		})
	})
}

func planText(p *planner.Planner, stmt ast.Statement, input string) string {
	var plan *planner.Plan
	var err error
	switch st := stmt.(type) {
	case *ast.Query:
		plan, err = p.PlanQuery(st)
	case *ast.CreateAsSelect:
		plan, err = p.PlanCreateAs(st)
	case *ast.InsertInto:
		plan, err = p.PlanInsertInto(st)
	default:
		return fmt.Sprintf("cannot plan %T\n", stmt)
	}
	if err != nil {
		return renderErr(err, input)
	}
	var b strings.Builder
	b.WriteString(planner.Explain(plan.Root))
	if plan.Sink != nil {
		fmt.Fprintf(&b, "sink: %s %s topic=%s key=%s value=%s partitions=%d\n", plan.Sink.Kind, plan.Sink.Name,
			plan.Sink.Topic, plan.Sink.KeyFormat.Name, plan.Sink.ValueFormat.Name, plan.Sink.Partitions)
	}
	return b.String()
}

// upgradeText plans the old query, puts its sink in the catalog, plans
// the CREATE OR REPLACE and checks the upgrade; the catalog is left as
// it was.
func upgradeText(p *planner.Planner, stmts []ast.Statement, input string) string {
	if len(stmts) != 2 {
		return "upgrade needs two statements\n"
	}
	old, err := p.PlanCreateAs(stmts[0].(*ast.CreateAsSelect))
	if err != nil {
		return renderErr(err, input)
	}
	p.Catalog.Put(old.Sink)
	defer p.Catalog.Delete(old.Sink.Name)
	st := stmts[1].(*ast.CreateAsSelect)
	next, err := p.PlanCreateAs(st)
	if err != nil {
		return renderErr(err, input)
	}
	r, err := planner.CheckQueryUpgrade(old, next, st.P)
	if err != nil {
		return renderErr(err, input)
	}
	return r.String()
}

func renderErr(err error, input string) string {
	if se, ok := err.(*sqlerr.Error); ok {
		if se.SQL == "" {
			se.SQL = input
		}
		return "error (" + string(se.Code) + "): " + se.Render() + "\n"
	}
	return "error: " + err.Error() + "\n"
}
