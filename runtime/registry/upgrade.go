package registry

import (
	"context"
	"strings"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// CheckUpgrade asks reg, for each subject of a running query's internal
// topics that its upgrade writes another schema under
// (physical.SchemaChanges from old to next: an aggregate added to a
// store, say), whether the subject's compatibility rule takes it, before
// anything is recorded: a refused schema would fail the new tasks on
// their first write. It refuses the upgrade naming the subject and the
// rule; a registry that does not answer refuses it too (try again once
// it does).
func CheckUpgrade(ctx context.Context, reg format.SchemaRegistry, old, next *physical.Topology, pos ast.Pos) error {
	changes := physical.SchemaChanges(old, next)
	if len(changes) == 0 {
		return nil
	}
	checker, ok := reg.(format.CompatibilityChecker)
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
