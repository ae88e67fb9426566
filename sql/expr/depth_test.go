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

// TestCompileChains: a flat left-associative chain compiles at one
// level of nesting however long, up to sqlerr.MaxChain links, and is a
// typed error past it.
func TestCompileChains(t *testing.T) {
	chain := func(n int) ast.Expr {
		one := func(col int) ast.Expr {
			return &ast.Literal{P: ast.Pos{Line: 1, Col: col}, Type: types.IntegerType, Value: int32(1)}
		}
		e := one(1)
		for i := 1; i <= n; i++ {
			e = &ast.Binary{P: ast.Pos{Line: 1, Col: 2 * i}, Op: ast.OpAdd, L: e, R: one(2*i + 1)}
		}
		return e
	}
	scope := SchemaScope(&types.Schema{}, nil, false)
	if _, err := Compile(chain(sqlerr.MaxDepth+1), scope, functions.NewRegistry()); err != nil {
		t.Fatalf("%d links: %v", sqlerr.MaxDepth+1, err)
	}
	_, err := Compile(chain(sqlerr.MaxChain+1), scope, functions.NewRegistry())
	var se *sqlerr.Error
	if !errors.As(err, &se) || se.Code != sqlerr.Syntax || se.Pos.Col != 1 {
		t.Fatalf("%d links: %v", sqlerr.MaxChain+1, err)
	}
}
