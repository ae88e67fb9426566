package runtime

import (
	"context"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/registry"
	"github.com/sqlstream/sqlstream/sql/ast"
)

// The engine's use of the schema registry (package runtime/registry):
// CREATE registers its sources' schemas, DROP … DELETE TOPIC deletes
// their subjects (never on replay), and a query that ends deletes the
// subjects of its internal topics.

func (e *Engine) registerSchemas(ctx context.Context, src *planner.Source, always bool, pos ast.Pos) error {
	return registry.Register(ctx, src, always, pos)
}

func (e *Engine) deleteSubjects(ctx context.Context, src *planner.Source, replay bool) error {
	if replay {
		return nil
	}
	return registry.DeleteSubjects(ctx, src)
}

func (e *Engine) deleteInternalSubjects(subjects []string) {
	registry.DeleteInternal(e.planner.Defaults.SchemaRegistry, subjects, e.logger)
}
