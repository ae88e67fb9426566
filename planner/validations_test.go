package planner_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
)

// Statuses of a row of testdata/validations.
const (
	statusSame     = "✓"   // refused with ksqlDB's text
	statusWords    = "~"   // refused in other words
	statusAccepted = "✗"   // accepted where ksqlDB refuses
	statusExt      = "ext" // accepted on purpose: a recorded extension
)

// TestValidations runs the table of ksqlDB's validations before a query
// runs (testdata/validations) through the planner and checks that each
// row's status is true. Commands:
//
//	create    CREATE STREAM/TABLE … (adds the source to the catalog)
//	validate  rule=<ksqlDB class.rule> status=<✓|~|✗|ext>
//	          input: a "ksqlDB: <message>" line, "note: …" lines (an ext row
//	          needs one), then statements: all but the last are added to
//	          the catalog, the last is the one ksqlDB refuses
//	summary   the rows so far counted by status: the checklist's figures
//
// The output is sqlstream's answer. ✓ needs a refusal that contains
// ksqlDB's message (its line separators written as spaces), ~ a refusal that does not, ✗ and ext an acceptance.
func TestValidations(t *testing.T) {
	p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{})
	counts := map[string]int{}
	datadriven.RunTest(t, "testdata/validations", func(t *testing.T, d *datadriven.TestData) string {
		switch d.Cmd {
		case "create":
			return addAll(t, p, d.Input)
		case "validate":
			out, status := validateRow(t, p, d)
			counts[status]++
			return out
		case "summary":
			return fmt.Sprintf("✓ %d\n~ %d\n✗ %d\next %d\n", counts[statusSame], counts[statusWords], counts[statusAccepted], counts[statusExt])
		}
		t.Fatalf("unknown command %s", d.Cmd)
		return ""
	})
}

// validationRow is one row of the table.
type validationRow struct {
	rule, status, ksql string
	notes              []string
	sql                string
}

func parseRow(t *testing.T, d *datadriven.TestData) validationRow {
	var r validationRow
	d.ScanArgs(t, "rule", &r.rule)
	d.ScanArgs(t, "status", &r.status)
	var sql []string
	for _, line := range strings.Split(d.Input, "\n") {
		switch {
		case strings.HasPrefix(line, "ksqlDB: "):
			r.ksql = strings.TrimPrefix(line, "ksqlDB: ")
		case strings.HasPrefix(line, "note: "):
			r.notes = append(r.notes, strings.TrimPrefix(line, "note: "))
		default:
			sql = append(sql, line)
		}
	}
	r.sql = strings.Join(sql, "\n")
	if r.ksql == "" {
		t.Fatalf("%s: %s has no ksqlDB: line", d.Pos, r.rule)
	}
	return r
}

func validateRow(t *testing.T, p *planner.Planner, d *datadriven.TestData) (string, string) {
	r := parseRow(t, d)
	stmts, err := parser.Parse(r.sql)
	answer := ""
	if err == nil {
		for _, st := range stmts[:len(stmts)-1] {
			add(t, p, st, r.sql)
		}
		err = planStatement(p, stmts[len(stmts)-1])
	}
	if err != nil {
		answer = "refused: " + err.Error()
	} else {
		answer = "accepted"
	}
	checkStatus(t, d, r, err)
	return answer + "\n", r.status
}

func checkStatus(t *testing.T, d *datadriven.TestData, r validationRow, err error) {
	same := err != nil && strings.Contains(oneLine(err.Error()), r.ksql)
	var ok bool
	switch r.status {
	case statusSame:
		ok = same
	case statusWords:
		ok = err != nil && !same
	case statusAccepted:
		ok = err == nil
	case statusExt:
		ok = err == nil && len(r.notes) > 0
	default:
		t.Fatalf("%s: %s: unknown status %q", d.Pos, r.rule, r.status)
	}
	if !ok {
		t.Errorf("%s: %s: status %s is not true (error: %v)", d.Pos, r.rule, r.status, err)
	}
}

// oneLine puts a message on one line as the table writes ksqlDB's: its
// line separators become spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func planStatement(p *planner.Planner, st ast.Statement) error {
	switch st := st.(type) {
	case *ast.CreateSource:
		_, err := p.CreateSource(st)
		return err
	case *ast.Query:
		_, err := p.PlanQuery(st)
		return err
	case *ast.CreateAsSelect:
		_, err := p.PlanCreateAs(st)
		return err
	case *ast.InsertInto:
		_, err := p.PlanInsertInto(st)
		return err
	}
	return fmt.Errorf("the planner does not check %T", st)
}

func addAll(t *testing.T, p *planner.Planner, sql string) string {
	stmts, err := parser.Parse(sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	for _, st := range stmts {
		add(t, p, st, sql)
	}
	return "ok\n"
}

// add puts a CREATE's source (or a CREATE … AS SELECT's sink) into the
// catalog.
func add(t *testing.T, p *planner.Planner, st ast.Statement, sql string) {
	switch st := st.(type) {
	case *ast.CreateSource:
		src, err := p.CreateSource(st)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		p.Catalog.Put(src)
	case *ast.CreateAsSelect:
		plan, err := p.PlanCreateAs(st)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		p.Catalog.Put(plan.Sink)
	default:
		t.Fatalf("%s: a setup statement must create a source, not %T", sql, st)
	}
}
