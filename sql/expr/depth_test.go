package expr

import (
	"errors"
	"testing"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// TestCompileDepthLimit: a tree deeper than sqlerr.MaxDepth (one the
// parser would refuse, built here directly, as a planner rewrite could)
// is a typed error from Compile, at the node past the limit, not a
// stack overflow; a tree at the limit compiles.
func TestCompileDepthLimit(t *testing.T) {
	nested := func(depth int) ast.Expr {
		var e ast.Expr = &ast.Literal{P: ast.Pos{Line: 1, Col: depth + 1}, Type: types.IntegerType, Value: int32(1)}
		for i := depth - 1; i > 0; i-- {
			e = &ast.Unary{P: ast.Pos{Line: 1, Col: i}, Op: ast.OpNeg, X: e}
		}
		return e
	}
	scope := SchemaScope(&types.Schema{}, nil, false)
	if _, err := Compile(nested(sqlerr.MaxDepth), scope, functions.NewRegistry()); err != nil {
		t.Fatalf("depth %d: %v", sqlerr.MaxDepth, err)
	}
	_, err := Compile(nested(200_000), scope, functions.NewRegistry())
	var se *sqlerr.Error
	if !errors.As(err, &se) || se.Code != sqlerr.Syntax || se.Pos.Col != sqlerr.MaxDepth+1 {
		t.Fatalf("depth 200000: %v", err)
	}
}
