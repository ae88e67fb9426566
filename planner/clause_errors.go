package planner

import (
	"errors"
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// inClause words an expression's error in clause (SELECT, WHERE,
// HAVING) as ksqlDB does: an unresolved column is "<clause> column 'X'
// cannot be resolved." (its ColumnReferenceValidator), an unsupported
// cast in a SELECT "Invalid Select: Cast of … is not supported". Other
// errors are returned as they are.
func inClause(err error, clause string) error {
	var se *sqlerr.Error
	if !errors.As(err, &se) {
		return err
	}
	w := *se
	switch {
	case strings.HasPrefix(se.Msg, "column '") && strings.HasSuffix(se.Msg, "cannot be resolved"):
		w.Msg = clause + " " + se.Msg + "."
	case clause == "SELECT" && strings.HasPrefix(se.Msg, "Cast of ") && strings.HasSuffix(se.Msg, "is not supported"):
		w.Msg = "Invalid Select: " + se.Msg
	default:
		return err
	}
	return &w
}

// negativeLimit refuses LIMIT -n: for a pull query in ksqlDB's words
// (PullQueryValidator); ksqlDB's grammar takes it for other queries too,
// which sqlstream refuses the same way rather than guess a meaning.
func negativeLimit(q *ast.Query, kind QueryKind) error {
	what := "Pull"
	if kind != Pull {
		what = "Push and persistent"
	}
	return sqlerr.New(sqlerr.Semantic, q.P, "%s queries don't support negative integers in the LIMIT clause.", what)
}

// callsAsWritten names the aggregate calls of a HAVING error as written
// (SUM(A)), not by the columns that hold their results
// (KSQL_AGG_VARIABLE_0), as ksqlDB's messages do.
func callsAsWritten(err error, calls []AggCall) error {
	var se *sqlerr.Error
	if !errors.As(err, &se) {
		return err
	}
	w := *se
	for i := len(calls) - 1; i >= 0; i-- { // KSQL_AGG_VARIABLE_10 before _1
		w.Msg = strings.ReplaceAll(w.Msg, calls[i].Column, ast.FormatExpr(calls[i].Call))
	}
	return &w
}
