package stmterr_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime/stmterr"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

func statementError(t *testing.T, err error) *api.StatementError {
	t.Helper()
	var se *api.StatementError
	if !errors.As(err, &se) {
		t.Fatalf("%T %v is not a statement_error", err, err)
	}
	return se
}

// TestWrap: an error message keeps its code, a SQL error renders its
// caret on the statement's text, anything else is 40001 with its text,
// and a failed ASSERT passes as it is.
func TestWrap(t *testing.T) {
	done := []api.Entity{}
	se := statementError(t, stmterr.Wrap(&api.ErrorMessage{ErrorCode: api.CodeBadRequest, Message: "no"}, "DROP X;", done))
	if se.ErrorCode != api.CodeBadRequest || se.Message != "no" || se.StatementText != "DROP X;" {
		t.Fatalf("error message: %+v", se)
	}
	se = statementError(t, stmterr.Wrap(fmt.Errorf("planning: %w", sqlerr.New(sqlerr.Unsupported, ast.Pos{Line: 1, Col: 6}, "bad")), "DROP X;", done))
	if se.ErrorCode != api.CodeBadStatement || !strings.Contains(se.Message, "DROP X;") || !strings.Contains(se.Message, "bad") {
		t.Fatalf("SQL error: %+v", se)
	}
	se = statementError(t, stmterr.Wrap(errors.New("boom"), "DROP X;", done))
	if se.ErrorCode != api.CodeBadStatement || se.Message != "boom" {
		t.Fatalf("plain error: %+v", se)
	}
	failed := &api.ErrorMessage{ErrorCode: api.CodeAssertionFailed, Message: "Topic t does not exist"}
	if err := stmterr.Wrap(failed, "ASSERT TOPIC t;", done); err != failed {
		t.Fatalf("failed ASSERT: %T %v", err, err)
	}
}

// TestMaskedParse: a statement holding a secret answers with its masked
// text and only the position and reason; another keeps the rendering.
func TestMaskedParse(t *testing.T) {
	text := "CREATE SOURCE CONNECTOR c WITH ('connector.class'='io.x', 'password'='hunter2' oops)"
	se := statementError(t, stmterr.MaskedParse(sqlerr.New(sqlerr.Syntax, ast.Pos{Line: 1, Col: 80}, "syntax error at or near oops"), text))
	if strings.Contains(se.Message, "hunter2") || strings.Contains(se.StatementText, "hunter2") || se.Message != "line 1:80: syntax error at or near oops" {
		t.Fatalf("masked: %+v", se)
	}
	se = statementError(t, stmterr.MaskedParse(sqlerr.New(sqlerr.Syntax, ast.Pos{Line: 1, Col: 1}, "syntax error"), "SELEC 1;"))
	if se.StatementText != "SELEC 1;" || !strings.Contains(se.Message, "SELEC 1;") {
		t.Fatalf("unmasked: %+v", se)
	}
}

// TestOnlyStatement: one statement's text, or ksqlDB's count of them.
func TestOnlyStatement(t *testing.T) {
	if got, err := stmterr.OnlyStatement("SELECT * FROM t;"); err != nil || !strings.HasPrefix(got, "SELECT * FROM t") {
		t.Fatalf("one: %q %v", got, err)
	}
	_, err := stmterr.OnlyStatement("SELECT 1 FROM t; SELECT 2 FROM t;")
	if se := statementError(t, err); se.Message != "Expected exactly one KSQL statement; found 2 instead" {
		t.Fatalf("two: %+v", se)
	}
	if got := stmterr.FirstWords("  CREATE   STREAM s (v INT)"); got != "CREATE STREAM" {
		t.Fatalf("FirstWords = %q", got)
	}
}
