package runtime

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/script"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// queryEndpointMessage is ksqlDB's answer (error 40002) to a SELECT or
// PRINT sent to /ksql.
// alterSystemRefusal is open-source ksqlDB's answer to ALTER SYSTEM
// (shared runtimes, which apply it, are off there and absent here).
const alterSystemRefusal = "Cannot alter system configs when KSQL_SHARED_RUNTIME_ENABLED is turned off."

const queryEndpointMessage = "The following statement types should be issued to the websocket endpoint '/query':\n\t* PRINT\n\t* SELECT"

// parseBatch parses every statement of a /ksql request before any of them
// runs, as ksqlDB does: a syntax error in statement N runs nothing, and
// neither does a SELECT or PRINT anywhere in the request (they belong on
// /query; a malformed one is a syntax error like any other). Statements
// see the variables and custom types they would see when run: a DEFINE,
// UNDEFINE, CREATE TYPE or DROP TYPE takes effect for the statements
// after it. A SET of ksql.variable.substitution.enable applies the same
// way. A request of more than props.MaxStatements statements is refused
// before any is parsed.
func (e *Engine) parseBatch(ctx context.Context, ksql string, s *session) ([]ast.Statement, error) {
	b := &batchScope{e: e, ctx: ctx, vars: maps.Clone(s.vars), types: map[string]*types.Type{},
		noSubstitution: !s.cfg.VarSubstitution}
	if b.vars == nil {
		b.vars = map[string]string{}
	}
	all := script.All(ksql)
	if limit := e.cfg.MaxStatements; len(all) > limit {
		return nil, &api.ErrorMessage{ErrorCode: api.CodeBadRequest, Message: fmt.Sprintf(
			"The request holds %d statements, more than the limit of %d (server property %s): send them in several requests",
			len(all), limit, props.MaxStatements)}
	}
	var out []ast.Statement
	for _, st := range all {
		stmt, err := b.parse(st.Text)
		if err != nil {
			return nil, maskedParseError(err, st.Text)
		}
		out = append(out, stmt)
	}
	for _, stmt := range out {
		switch stmt.(type) {
		case *ast.Query, *ast.Print:
			return nil, &api.StatementError{ErrorCode: api.CodeQueryEndpoint, Message: queryEndpointMessage,
				StatementText: stmt.Text(), Entities: []api.Entity{}}
		}
	}
	return out, nil
}

// batchScope is what the statements of one request parsed so far define:
// variables and custom types.
type batchScope struct {
	e     *Engine
	ctx   context.Context // the request's: parsing stops when it is done
	vars  map[string]string
	types map[string]*types.Type
	// noSubstitution: ksql.variable.substitution.enable is false.
	noSubstitution bool
}

// parse substitutes and parses one statement, then applies what it
// defines to the scope of the statements after it.
func (b *batchScope) parse(text string) (ast.Statement, error) {
	sub, err := substituteUnless(b.noSubstitution, text, b.vars)
	if err != nil {
		return nil, err
	}
	stmt, err := parseSingle(b.ctx, sub, b.lookupType)
	if err != nil {
		return nil, err
	}
	switch st := stmt.(type) {
	case *ast.SetProperty:
		if props.Normalize(st.Name) == props.VarSubstitution {
			b.noSubstitution = strings.EqualFold(st.Value, "false")
		}
	case *ast.Define:
		b.vars[st.Name] = st.Value
	case *ast.Undefine:
		delete(b.vars, st.Name)
	case *ast.CreateType:
		b.types[st.Name] = st.Type
	case *ast.DropType:
		b.types[st.Name] = nil
	}
	return stmt, nil
}

// lookupType resolves a custom type created (or dropped: nil) earlier in
// the request, then in the catalog.
func (b *batchScope) lookupType(name string) (*types.Type, bool) {
	if t, ok := b.types[name]; ok {
		return t, t != nil
	}
	return b.e.cat.Types().Lookup(name)
}

// maskedParseError is the statement_error of a statement that does not
// parse. When the statement holds values ksqlDB's QueryMask hides
// (parser.MaskText), the message keeps only the position and the reason:
// neither the source line nor the token near the error, either of which
// may be a credential.
func maskedParseError(err error, text string) error {
	masked := parser.MaskText(text)
	var se *sqlerr.Error
	if masked == text || !errors.As(err, &se) {
		return statementError(err, masked, nil)
	}
	msg := se.Msg
	if se.Pos.Line > 0 {
		msg = fmt.Sprintf("line %d:%d: %s", se.Pos.Line, se.Pos.Col, se.Msg)
	}
	return statementError(&api.ErrorMessage{ErrorCode: api.CodeBadStatement, Message: msg}, masked, nil)
}
