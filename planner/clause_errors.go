package planner

import (
	"errors"
	"strings"

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
