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
		{"IFNULL", []*types.Type{types.DecimalOf(4, 2), types.DecimalOf(3, 1)}, "DECIMAL(4, 2),DECIMAL(4, 2)", "DECIMAL(4, 2)"},
		// Exact overloads beat widening ones; widening picks the only fit.
		{"ABS", []*types.Type{types.IntegerType}, "INTEGER", "INTEGER"},
		{"SQRT", []*types.Type{types.IntegerType}, "DOUBLE", "DOUBLE"},
		{"ROUND", []*types.Type{types.DecimalOf(5, 2)}, "DECIMAL(5, 2)", "DECIMAL(4, 0)"},
		{"ROUND", []*types.Type{types.DecimalOf(5, 2), types.IntegerType}, "DECIMAL(5, 2),INTEGER", "DECIMAL(6, 2)"},
		{"GREATEST", []*types.Type{types.DecimalOf(9, 2), types.DecimalOf(7, 6)}, "DECIMAL(9, 2),DECIMAL(7, 6)", "DECIMAL(13, 6)"},
		{"GREATEST", []*types.Type{types.IntegerType, types.BigintType, types.DoubleType}, "DOUBLE,DOUBLE,DOUBLE", "DOUBLE"},
		{"ELT", []*types.Type{types.IntegerType}, "INTEGER", "STRING"},
		{"TIMESTAMPADD", []*types.Type{types.StringType, types.IntegerType, types.TimestampType}, "STRING,INTEGER,TIMESTAMP", "TIMESTAMP"},
	}
	for _, c := range cases {
		res, err := r.Resolve(c.name, c.args)
		if err != nil {
			t.Errorf("%s%v: %v", c.name, c.args, err)
			continue
		}
		if got := typeList(res.Params); got != c.params || res.Return.String() != c.ret {
			t.Errorf("%s%v: params %s return %s, want %s return %s", c.name, c.args, got, res.Return, c.params, c.ret)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	r := NewRegistry()
	if _, err := r.Resolve("GREATEST", []*types.Type{types.IntegerType, types.BigintType}); err == nil ||
		!strings.Contains(err.Error(), "ambiguous method parameters (INTEGER, BIGINT)") {
		t.Errorf("GREATEST(INTEGER, BIGINT): %v", err)
	}
	if _, err := r.Resolve("COUNT", []*types.Type{types.IntegerType}); err == nil || !strings.Contains(err.Error(), "Aggregate") {
		t.Errorf("COUNT(INTEGER) as a scalar: %v", err)
	}
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

func TestResolveLambdas(t *testing.T) {
	r := NewRegistry()
	var seen [][]*types.Type
	typer := func(arg int, params []*types.Type) (*types.Type, error) {
		seen = append(seen, params)
		return types.StringType, nil
	}
	res, err := r.ResolveLambdas("TRANSFORM", []*types.Type{types.ArrayOf(types.BigintType), nil}, typer)
	if err != nil {
		t.Fatal(err)
	}
	if res.Return.String() != "ARRAY<STRING>" || typeList(res.LambdaParams[1]) != "BIGINT" || res.Params[1].String() != "STRING" {
		t.Errorf("TRANSFORM(ARRAY<BIGINT>, x => STRING): return %s, lambda params %v, lambda result %s", res.Return, res.LambdaParams, res.Params[1])
	}
	if len(seen) == 0 {
		t.Errorf("the lambda was never typed")
	}
}

func TestDescribeAndFunctions(t *testing.T) {
	r := NewRegistry()
	ovs, ok := r.Describe("substring")
	if !ok || len(ovs) != 4 {
		t.Fatalf("Describe(SUBSTRING) = %v, %v", ovs, ok)
	}
	if a := ovs[1].Arguments; len(a) != 3 || a[0].Name != "str" || a[0].Type != "STRING" || ovs[1].ReturnType != "STRING" || ovs[1].Description == "" {
		t.Errorf("SUBSTRING overload 2 = %+v", ovs[1])
	}
	if ovs, _ := r.Describe("CONCAT"); !ovs[0].Arguments[0].Variadic {
		t.Errorf("CONCAT's parameter is not variadic: %+v", ovs[0])
	}
	kinds := map[string]FuncKind{}
	for _, f := range r.Functions() {
		kinds[f.Name] = f.Kind
	}
	if kinds["UCASE"] != Scalar || kinds["SUM"] != Aggregate || kinds["EXPLODE"] != Table {
		t.Errorf("kinds: UCASE %v SUM %v EXPLODE %v", kinds["UCASE"], kinds["SUM"], kinds["EXPLODE"])
	}
	names := r.Names()
	for i := 1; i < len(names); i++ {
		if names[i-1] >= names[i] {
			t.Fatalf("Names() not sorted at %s, %s", names[i-1], names[i])
		}
	}
}

func TestDeclaredAggregatesMatchTheAggregateRegistry(t *testing.T) {
	r := NewRegistry()
	declared := map[string]bool{}
	for _, f := range r.Functions() {
		if f.Kind == Aggregate {
			declared[f.Name] = true
		}
	}
	names := NewAggregates().Names()
	for _, n := range names {
		if !declared[n] {
			t.Errorf("aggregate %s is not declared in the scalar registry", n)
		}
	}
	if len(declared) != len(names) {
		t.Errorf("declared %d aggregates, the aggregate registry has %d", len(declared), len(names))
	}
}

func TestNoOverloadAlternatives(t *testing.T) {
	_, err := NewRegistry().Resolve("LPAD", []*types.Type{types.IntegerType})
	want := "Function 'LPad' does not accept parameters (INTEGER).\nValid alternatives are:\n" +
		"LPAD(STRING input, INTEGER length, STRING padding)\nLPAD(BYTES input, INTEGER length, BYTES padding)"
	if err == nil || err.Error() != want {
		t.Errorf("LPAD(INTEGER): %v\nwant %s", err, want)
	}
}
