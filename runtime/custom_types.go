package runtime

import (
	"context"
	"fmt"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/sql/ast"
)

// createType registers a custom type and records the statement in the
// command log, so the type survives a restart (replay re-registers it
// before the statements that use it).
func (e *Engine) createType(ctx context.Context, st *ast.CreateType, s *session, cmd *command) (api.Entity, error) {
	if old, ok := e.cat.Types().Lookup(st.Name); ok && st.IfNotExists {
		return api.WarningEntity{StatementText: st.Text(), Message: fmt.Sprintf(
			"Cannot register custom type '%s' since it is already registered with type: %s", st.Name, old)}, nil
	}
	if _, err := e.cat.Types().Register(st); err != nil {
		return nil, err
	}
	c, err := e.record(ctx, st, s, cmd, nil)
	if err != nil {
		_, _ = e.cat.Types().Drop(&ast.DropType{Name: st.Name})
		return nil, err
	}
	msg := fmt.Sprintf("Registered custom type with name '%s' and SQL type %s", st.Name, st.Type)
	return commandStatus(st, "type/"+st.Name+"/create", msg, c.Seq, ""), nil
}

// dropType removes a custom type. Sources created with it keep their
// (expanded) column types.
func (e *Engine) dropType(ctx context.Context, st *ast.DropType, s *session, cmd *command) (api.Entity, error) {
	old, ok := e.cat.Types().Lookup(st.Name)
	if !ok && st.IfExists {
		return api.WarningEntity{StatementText: st.Text(), Message: fmt.Sprintf("Type %s does not exist.", st.Name)}, nil
	}
	if _, err := e.cat.Types().Drop(st); err != nil {
		return nil, err
	}
	c, err := e.record(ctx, st, s, cmd, nil)
	if err != nil {
		_, _ = e.cat.Types().Register(&ast.CreateType{Name: st.Name, Type: old})
		return nil, err
	}
	return commandStatus(st, "type/"+st.Name+"/drop", fmt.Sprintf("Dropped type '%s'", st.Name), c.Seq, ""), nil
}
