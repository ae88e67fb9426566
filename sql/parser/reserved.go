package parser

import (
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// checkNotReserved rejects t when it is an unquoted reserved word
// (ast.ReservedWords, ksqlDB's) used as a name.
func (p *parser) checkNotReserved(t token) error {
	if t.Kind != tIdent || !ast.IsReserved(t.Val) {
		return nil
	}
	return p.errAt(t, sqlerr.Syntax, "%s is a reserved word: quote it (`%s`) to use it as a name", t.Val, t.Raw)
}
