package planner

import (
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// AlterSource plans ALTER STREAM|TABLE … ADD [COLUMN] …: a copy of the
// catalog's source with the value columns appended, refused in ksqlDB's
// words (its AlterSourceFactory and DdlCommandExec) for a missing source,
// a read-only (CREATE SOURCE) one, the other kind, a source a CREATE … AS
// SELECT made, and a column name already taken. The copy's statement
// text is the source's with the ALTER on a line of its own after it, as
// ksqlDB's DESCRIBE shows it. The catalog is not
// changed: the caller puts the copy once the command is recorded.
func (p *Planner) AlterSource(st *ast.AlterSource) (*Source, error) {
	src, ok := p.Catalog.Get(st.Name)
	kind := strings.ToLower(st.Kind.String())
	switch {
	case ok && src.ReadOnly:
		return nil, sqlerr.New(sqlerr.Semantic, st.P, "Cannot alter %s '%s': ALTER operations are not supported on source %ss.", kind, st.Name, kind)
	case !ok:
		return nil, sqlerr.New(sqlerr.Unknown, st.P, "Source %s does not exist.", st.Name)
	case src.Kind != st.Kind:
		return nil, sqlerr.New(sqlerr.Semantic, st.P, "Incompatible data source type is %s, but statement was ALTER %s", src.Kind, st.Kind)
	case src.QueryCreated:
		return nil, sqlerr.New(sqlerr.Semantic, st.P, "ALTER command is not supported for CREATE ... AS statements.")
	}
	cols := append([]types.Column(nil), src.Schema.Columns...)
	for _, c := range st.Columns {
		if (&types.Schema{Columns: cols}).Find(c.Name) >= 0 {
			return nil, sqlerr.New(sqlerr.Semantic, c.P, "Cannot add column `%s` to schema. A column with the same name already exists.", c.Name)
		}
		cols = append(cols, types.Column{Name: c.Name, Type: c.Type, NS: types.ValueNS})
	}
	altered := *src
	altered.Schema = &types.Schema{Columns: cols}
	// ksqlDB's DdlCommandExec appends the ALTER to the source's statement
	// (DataSource.with: sql + "\n" + alter), which DESCRIBE shows.
	altered.SQL = src.SQL + "\n" + st.Text()
	return &altered, nil
}
