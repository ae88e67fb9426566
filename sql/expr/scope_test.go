package expr

import (
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

func TestSchemaScope(t *testing.T) {
	s := &types.Schema{Columns: []types.Column{
		{Name: "ID", Type: types.StringType, NS: types.KeyNS},
		{Name: "WINDOWSTART", Type: types.StringType},
	}}
	cases := []struct {
		scope        Scope
		source, name string
		want         Ref
		fails        bool
	}{
		{SchemaScope(s, nil, false), "", "ID", Ref{Index: 0, Type: types.StringType}, false},
		{SchemaScope(s, []string{"O", "ORDERS"}, false), "O", "ID", Ref{Index: 0, Type: types.StringType}, false},
		{SchemaScope(s, []string{"O"}, false), "X", "ID", Ref{}, true},
		{SchemaScope(s, nil, false), "", "ROWTIME", Ref{Pseudo: RowTime, Type: types.BigintType}, false},
		{SchemaScope(s, nil, false), "", "ROWPARTITION", Ref{Pseudo: RowPartition, Type: types.IntegerType}, false},
		{SchemaScope(s, nil, false), "", "WINDOWEND", Ref{}, true},
		{SchemaScope(s, nil, true), "", "WINDOWEND", Ref{Pseudo: WindowEnd, Type: types.BigintType}, false},
		// A real column shadows the pseudo column of the same name.
		{SchemaScope(s, nil, true), "", "WINDOWSTART", Ref{Index: 1, Type: types.StringType}, false},
		{SchemaScope(s, nil, false), "", "id", Ref{}, true},
	}
	for _, c := range cases {
		got, err := c.scope.Resolve(c.source, c.name)
		if (err != nil) != c.fails {
			t.Errorf("Resolve(%q, %q): error %v, want failure %v", c.source, c.name, err, c.fails)
			continue
		}
		if err == nil && (got.Index != c.want.Index || got.Pseudo != c.want.Pseudo || !got.Type.Equal(c.want.Type)) {
			t.Errorf("Resolve(%q, %q) = %+v, want %+v", c.source, c.name, got, c.want)
		}
	}
}
