package functions

import (
	"fmt"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

func TestResolveTable(t *testing.T) {
	r := NewRegistry()
	res, err := r.ResolveTable("explode", []*types.Type{types.ArrayOf(types.DecimalOf(20, 10))})
	if err != nil || res.Return.String() != "DECIMAL(20, 10)" {
		t.Fatalf("EXPLODE(ARRAY<DECIMAL(20, 10)>) = %+v, %v", res, err)
	}
	if _, err := r.ResolveTable("EXPLODE", []*types.Type{types.MapOf(types.StringType, types.IntegerType)}); err == nil {
		t.Errorf("EXPLODE(MAP) resolved")
	}
	if _, err := r.ResolveTable("UCASE", []*types.Type{types.StringType}); err == nil {
		t.Errorf("UCASE resolved as a table function")
	}
	if k, _ := r.Kind("CUBE_EXPLODE"); k != Table {
		t.Errorf("CUBE_EXPLODE kind %v", k)
	}
}

func TestTableFunctions(t *testing.T) {
	cases := []struct {
		fn   func([]any) ([]any, error)
		in   []any
		want string
	}{
		{explode, []any{int64(1), nil, int64(2)}, "[1 <nil> 2]"},
		{explode, []any{}, "[]"},
		{cubeExplode, []any{int32(1), int32(2)}, "[[<nil> <nil>] [<nil> 2] [1 <nil>] [1 2]]"},
		{cubeExplode, []any{int32(1), nil}, "[[<nil> <nil>] [1 <nil>]]"},
		{cubeExplode, []any{"a", "b", "c"}, "[[<nil> <nil> <nil>] [<nil> <nil> c] [<nil> b <nil>] [<nil> b c] [a <nil> <nil>] [a <nil> c] [a b <nil>] [a b c]]"},
	}
	for _, c := range cases {
		out, err := c.fn([]any{c.in})
		if got := fmt.Sprint(out); err != nil || got != c.want && !(c.want == "[]" && len(out) == 0) {
			t.Errorf("%v → %s (%v), want %s", c.in, got, err, c.want)
		}
	}
}
