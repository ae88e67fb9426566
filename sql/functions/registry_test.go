package functions

import (
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

func TestNewRegistryRegistersBuiltins(t *testing.T) {
	r := NewRegistry()
	for _, name := range []string{"CONCAT", "SUBSTRING", "UCASE", "LCASE", "COALESCE"} {
		if _, ok := r.Lookup(name); !ok {
			t.Errorf("%s is not registered", name)
		}
	}
	if !r.IsAggregate("count") {
		t.Errorf("COUNT is not known as an aggregate")
	}
}

func TestResolve(t *testing.T) {
	r := NewRegistry()
	cases := []struct {
		name   string
		args   []*types.Type
		params string
		ret    string
	}{
		{"SUBSTRING", []*types.Type{types.StringType, types.IntegerType}, "STRING,INTEGER", "STRING"},
		{"CONCAT", []*types.Type{types.StringType, types.UnknownType, types.StringType}, "STRING,STRING,STRING", "STRING"},
		{"CONCAT", []*types.Type{types.BytesType, types.BytesType}, "BYTES,BYTES", "BYTES"},
		{"COALESCE", []*types.Type{types.IntegerType, types.BigintType}, "BIGINT,BIGINT", "BIGINT"},
		{"COALESCE", []*types.Type{types.UnknownType, types.ArrayOf(types.IntegerType)}, "ARRAY<INTEGER>,ARRAY<INTEGER>", "ARRAY<INTEGER>"},
		{"IFNULL", []*types.Type{types.DecimalOf(4, 2), types.IntegerType}, "DECIMAL(12, 2),DECIMAL(12, 2)", "DECIMAL(12, 2)"},
	}
	for _, c := range cases {
		res, err := r.Resolve(c.name, c.args)
		if err != nil {
			t.Errorf("%s%v: %v", c.name, c.args, err)
			continue
		}
		var ps []string
		for _, p := range res.Params {
			ps = append(ps, p.String())
		}
		if got := strings.Join(ps, ","); got != c.params || res.Return.String() != c.ret {
			t.Errorf("%s%v: params %s return %s, want %s return %s", c.name, c.args, got, res.Return, c.params, c.ret)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	r := NewRegistry()
	if _, err := r.Resolve("COALESCE", nil); err == nil || !strings.Contains(err.Error(), "does not accept parameters ()") {
		t.Errorf("COALESCE(): %v", err)
	}
	if _, err := r.Resolve("NOPE", nil); err == nil {
		t.Errorf("NOPE(): no error")
	}
	if _, err := r.Resolve("UCASE", []*types.Type{types.IntegerType}); err == nil {
		t.Errorf("UCASE(INTEGER): no error")
	}
}
