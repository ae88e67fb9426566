package stmterr

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime/connectors"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/script"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// QueryEndpoint is ksqlDB's answer (error 40002) to a SELECT or PRINT
// sent to /ksql.
const QueryEndpoint = "The following statement types should be issued to the websocket endpoint '/query':\n\t* PRINT\n\t* SELECT"

// AlterSystemRefusal is open-source ksqlDB's answer to ALTER SYSTEM
// (shared runtimes, which apply it, are off there and absent here).
const AlterSystemRefusal = "Cannot alter system configs when KSQL_SHARED_RUNTIME_ENABLED is turned off."

// Wrap wraps err as ksqlDB's statement_error of the statement text, done
// being the entities the request produced before it.
func Wrap(err error, text string, done []api.Entity) error {
	var re *connectors.Error
	if errors.As(err, &re) {
		return re.ErrorMessage // ksqlDB's KsqlRestException: its body as it is
	}
	var ae *api.ErrorMessage
	if errors.As(err, &ae) && ae.ErrorCode == api.CodeAssertionFailed {
		return ae // ksqlDB answers a failed ASSERT with a generic error body
	}
	if errors.As(err, &ae) {
		return &api.StatementError{ErrorCode: ae.ErrorCode, Message: ae.Message, StatementText: text, Entities: done}
	}
	msg := err.Error()
	var se *sqlerr.Error
	if errors.As(err, &se) {
		if se.SQL == "" {
			se.SQL = text
		}
		msg = se.Render()
	}
	return &api.StatementError{ErrorCode: api.CodeBadStatement, Message: msg, StatementText: text, Entities: done}
}

// MaskedParse is the statement_error of a statement that does not
// parse. When the statement holds values ksqlDB's QueryMask hides
// (parser.MaskText), the message keeps only the position and the reason:
// neither the source line nor the token near the error, either of which
// may be a credential.
func MaskedParse(err error, text string) error {
	masked := parser.MaskText(text)
	var se *sqlerr.Error
	if masked == text || !errors.As(err, &se) {
		return Wrap(err, masked, nil)
	}
	msg := se.Msg
	if se.Pos.Line > 0 {
		msg = fmt.Sprintf("line %d:%d: %s", se.Pos.Line, se.Pos.Col, se.Msg)
	}
	return Wrap(&api.ErrorMessage{ErrorCode: api.CodeBadStatement, Message: msg}, masked, nil)
}

// OnlyStatement is the text of the one statement of sql: /query and
// /query-stream run exactly one, and more (or none) is an error rather
// than a silent drop of the rest, as in ksqlDB.
func OnlyStatement(sql string) (string, error) {
	stmts := script.All(sql)
	if len(stmts) == 1 {
		return stmts[0].Text, nil
	}
	return "", &api.StatementError{ErrorCode: api.CodeBadStatement, StatementText: sql, Entities: []api.Entity{},
		Message: fmt.Sprintf("Expected exactly one KSQL statement; found %d instead", len(stmts))}
}

// ForwardedPull refuses anything but a pull query on a table in a
// forwarded request.
func ForwardedPull() error {
	return &api.ErrorMessage{ErrorCode: api.CodeBadRequest, Message: "a forwarded request runs only a pull query on a table"}
}

// FirstWords is the first two words of a statement's text, to name it in
// a refusal.
func FirstWords(s string) string {
	f := strings.Fields(s)
	if len(f) > 2 {
		f = f[:2]
	}
	return strings.Join(f, " ")
}
