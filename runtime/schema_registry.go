package runtime

import (
	"context"
	"strings"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/registry"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
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

// checkUpgradeSchemas asks the registry, for each subject of the running
// query's internal topics that the upgrade writes another schema under
// (physical.SchemaChanges: an aggregate added to a store, say), whether
// the subject's compatibility rule takes it, before anything is recorded:
// a refused schema would fail the new tasks on their first write. It
// refuses the upgrade naming the subject and the rule; a registry that
// does not answer refuses it too (try again once it does).
func (e *Engine) checkUpgradeSchemas(ctx context.Context, u *upgrade, pos ast.Pos) error {
	changes := physical.SchemaChanges(u.old.topo, u.topo)
	if len(changes) == 0 {
		return nil
	}
	checker, ok := e.planner.Defaults.SchemaRegistry.(format.CompatibilityChecker)
	if !ok {
		return sqlerr.New(sqlerr.Semantic, pos, "Cannot upgrade the query in place: the schema registry cannot check whether subject %s takes the upgrade's new schema", changes[0].Subject)
	}
	for _, c := range changes {
		res, err := checker.CheckCompatibility(ctx, c.Subject, c.Schema)
		if err != nil {
			return sqlerr.New(sqlerr.Semantic, pos, "Cannot upgrade the query in place: the schema registry did not say whether subject %s takes the upgrade's new schema (try again once it answers): %v", c.Subject, err)
		}
		if !res.Compatible {
			return sqlerr.New(sqlerr.Semantic, pos, "Cannot upgrade the query in place keeping its state: the new schema of subject %s is not %s compatible with what it holds (%s), so the upgraded query would fail on its first write there. "+
				"Set a compatibility level on the subject that takes it (PUT /config/%s), or create a new query (a new sink) instead.",
				c.Subject, res.Rule, strings.Join(res.Messages, "; "), c.Subject)
		}
	}
	return nil
}
