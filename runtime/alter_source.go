package runtime

import (
	"context"
	"fmt"
	"strings"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/sql/ast"
)

// alterSource runs ALTER STREAM|TABLE … ADD [COLUMN] …, as ksqlDB's
// DdlCommandExec: the planner checks it and appends the value columns,
// the statement is recorded in the command topic (so every server and a
// restart apply it in order), and the catalog takes the new schema.
// Queries already running keep the columns they were planned with; the
// statements after it see the new ones.
func (e *Engine) alterSource(ctx context.Context, st *ast.AlterSource, s *session, cmd *command) (api.Entity, error) {
	src, err := e.planner.AlterSource(st)
	if err != nil {
		return nil, err
	}
	c, err := e.record(ctx, st, s, cmd, nil)
	if err != nil {
		return nil, err
	}
	e.cat.Put(src)
	kind := strings.ToLower(st.Kind.String())
	id := kind + "/" + st.Name + "/alter"
	e.statuses[id] = api.StatusSuccess
	return commandStatus(st, id, fmt.Sprintf("%s %s altered.", strings.ToUpper(kind[:1])+kind[1:], st.Name), c.Seq, ""), nil
}
