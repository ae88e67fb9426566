package planner

import (
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// checkUpgrade refuses a CREATE OR REPLACE that would change the columns
// of an existing source other than by adding value columns at the end, as
// ksqlDB does: queries reading the source and rows already in its topic
// depend on the old columns. The key columns must be identical; every old
// value column must keep its position, name and type.
func checkUpgrade(old, next *Source, pos ast.Pos) error {
	if changed := changedColumns(old.Schema.Keys(), next.Schema.Keys()); len(changed) > 0 {
		return upgradeError(old, next, pos, "Key columns must be identical. The following key columns are changed, missing or reordered: "+changed.String())
	}
	if changed := changedColumns(old.Schema.Values(), next.Schema.Values()); len(changed) > 0 {
		return upgradeError(old, next, pos, "The following columns are changed, missing or reordered: "+changed.String())
	}
	return nil
}

// columnList prints as ksqlDB prints a set of columns: [`A` INTEGER, …].
type columnList []types.Column

func (l columnList) String() string {
	s := &types.Schema{Columns: l}
	return "[" + s.String(true) + "]"
}

// changedColumns are the columns of old that next does not have at the
// same position with the same name and type.
func changedColumns(old, next []types.Column) columnList {
	var out columnList
	for i, c := range old {
		if i >= len(next) || next[i].Name != c.Name || !next[i].Type.Equal(c.Type) || next[i].NS != c.NS || next[i].HeaderKey != c.HeaderKey {
			out = append(out, c)
		}
	}
	return out
}

func upgradeError(old, next *Source, pos ast.Pos, why string) error {
	return sqlerr.New(sqlerr.Semantic, pos, "Cannot upgrade data source: DataSource '`%s`' has schema = %s which is not upgradeable to %s. (%s)",
		old.Name, old.Schema.String(true), next.Schema.String(true), strings.TrimSpace(why))
}
