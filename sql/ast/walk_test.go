package ast_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/parser"
)

// TestWalk pins the traversal of every node kind (testdata/walk):
//
//	walk     the tree as ast.Children lists it, indented by depth
//	rewrite  ast.Rewrite qualifying each column reference with T and
//	         replacing each literal 1 by 100 (lambda parameters are
//	         qualified too: Rewrite knows no scopes)
func TestWalk(t *testing.T) {
	datadriven.RunTest(t, "testdata/walk", func(t *testing.T, d *datadriven.TestData) string {
		e, err := parser.ParseExpr(strings.TrimSpace(d.Input))
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		switch d.Cmd {
		case "walk":
			return walkTree(e)
		case "rewrite":
			before := ast.FormatExpr(e)
			out := ast.FormatExpr(ast.Rewrite(e, qualify))
			if ast.FormatExpr(e) != before {
				t.Errorf("Rewrite modified its input: %s", ast.FormatExpr(e))
			}
			return out + "\n"
		}
		t.Fatalf("unknown command %s", d.Cmd)
		return ""
	})
}

// walkTree lists the nodes under e in visiting order, each indented by
// its depth.
func walkTree(e ast.Expr) string {
	var b strings.Builder
	var visit func(e ast.Expr, depth int)
	visit = func(e ast.Expr, depth int) {
		fmt.Fprintf(&b, "%s%T %s\n", strings.Repeat("  ", depth), e, ast.FormatExpr(e))
		for _, c := range ast.Children(e) {
			visit(c, depth+1)
		}
	}
	visit(e, 0)
	return b.String()
}

func qualify(e ast.Expr) (ast.Expr, bool) {
	switch x := e.(type) {
	case *ast.ColumnRef:
		return &ast.ColumnRef{P: x.P, Source: "T", Name: x.Name}, true
	case *ast.Literal:
		if ast.FormatExpr(x) == "1" {
			return &ast.Literal{P: x.P, Value: int32(100), Type: x.Type}, true
		}
	}
	return nil, false
}

func TestWalkStops(t *testing.T) {
	e, err := parser.ParseExpr("UCASE(A) || B")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	ast.Walk(e, func(x ast.Expr) bool {
		n++
		_, isCall := x.(*ast.Call)
		return !isCall
	})
	if n != 3 { // the ||, the call (not entered) and B
		t.Errorf("visited %d nodes, want 3", n)
	}
}
