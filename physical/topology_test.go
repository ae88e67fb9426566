package physical_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
)

// TestTopology pins the topology descriptions EXPLAIN prints, including
// node and topic names. Commands: create (a source), topology (a query),
// compare (a query and its upgrade: CompareState's diff or refusal;
// with legacy-store-keys both are built as queries of commands recorded
// with storeFormats "query" are, Options.LegacyStoreKeysJSON).
// topology legacy-numbers builds as for a command recorded before
// ksqlDB's join store numbers (Options.LegacyJoinStoreNumbers).
// topology legacy-changelog-prefix builds as for a command recorded with
// storeFormats "query/2" (Options.LegacyChangelogTimePrefix).
// Sources may be in registry formats: building a topology asks the
// registry nothing (its codecs register when their tasks run).
func TestTopology(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{SchemaRegistry: unaskedRegistry{t}})
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
				topo, err := buildWith(p, stmts[0], physical.Options{AppID: "app", LegacyJoinStoreNumbers: d.HasArg("legacy-numbers"),
					LegacyChangelogTimePrefix: d.HasArg("legacy-changelog-prefix")})
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				return topo.Describe()
			case "compare":
				// The first statement is a query, the last its upgrade; a
				// CREATE between them replaces a source for the upgrade
				// (the catalog gets the old one back after).
				opts := physical.Options{AppID: "app", LegacyStoreKeysJSON: d.HasArg("legacy-store-keys")}
				old, err := buildWith(p, stmts[0], opts)
				if err != nil {
					t.Fatal(err)
				}
				if len(stmts) == 3 {
					defer replaceSource(t, p, stmts[1].(*ast.CreateSource))()
				}
				next, err := buildWith(p, stmts[len(stmts)-1], opts)
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

// replaceSource puts the source c creates in p's catalog in place of the
// one of its name, and returns what puts that one back.
func replaceSource(t *testing.T, p *planner.Planner, c *ast.CreateSource) func() {
	t.Helper()
	src, err := p.CreateSource(c)
	if err != nil {
		t.Fatal(err)
	}
	was, _ := p.Catalog.Get(src.Name)
	p.Catalog.Put(src)
	return func() { p.Catalog.Put(was) }
}

// build plans and builds one query statement under the application id app.
func build(p *planner.Planner, st ast.Statement) (*physical.Topology, error) {
	return buildWith(p, st, physical.Options{AppID: "app"})
}

// buildWith plans and builds one query statement with opts.
func buildWith(p *planner.Planner, st ast.Statement, opts physical.Options) (*physical.Topology, error) {
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
	return physical.Build(plan, opts)
}

// unaskedRegistry is the registry of tests that must not ask one: any
// call fails the test.
type unaskedRegistry struct{ t *testing.T }

func (r unaskedRegistry) fail(what string) error {
	r.t.Fatalf("the schema registry was asked: %s", what)
	return errors.New(what)
}

func (r unaskedRegistry) SchemaByID(_ context.Context, id int) (format.RegisteredSchema, error) {
	return format.RegisteredSchema{}, r.fail(fmt.Sprint("schema id ", id))
}

func (r unaskedRegistry) Latest(_ context.Context, subject string) (format.RegisteredSchema, error) {
	return format.RegisteredSchema{}, r.fail("latest of " + subject)
}

func (r unaskedRegistry) Register(_ context.Context, subject string, _ format.Schema) (format.RegisteredSchema, error) {
	return format.RegisteredSchema{}, r.fail("register under " + subject)
}

func (r unaskedRegistry) DeleteSubject(_ context.Context, subject string, _ bool) error {
	return r.fail("delete " + subject)
}
