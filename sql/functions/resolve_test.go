package functions

import (
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

// TestResolveScalarDefs checks that the registry parses every signature of
// scalarDefs and resolves typical calls to the right return types.
func TestResolveScalarDefs(t *testing.T) {
	r := NewRegistry()
	for _, d := range scalarDefs(nil) {
		if _, ok := r.Lookup(d.Name); !ok {
			t.Errorf("%s is not registered", d.Name)
		}
		if d.Description == "" {
			t.Errorf("%s has no description", d.Name)
		}
	}
	str, i, bi, dbl, boo := types.StringType, types.IntegerType, types.BigintType, types.DoubleType, types.BooleanType
	for _, tc := range []struct {
		name string
		args []*types.Type
		want string
	}{
		{"URL_EXTRACT_PORT", []*types.Type{str}, "INTEGER"},
		{"EXTRACTJSONFIELD", []*types.Type{str, str}, "STRING"},
		{"JSON_CONCAT", []*types.Type{str, str, str}, "STRING"},
		{"JSON_RECORDS", []*types.Type{str}, "MAP<STRING, STRING>"},
		{"JSON_ARRAY_CONTAINS", []*types.Type{str, bi}, "BOOLEAN"},
		{"TO_JSON_STRING", []*types.Type{types.StructOf(types.Field{Name: "A", Type: i})}, "STRING"},
		{"ARRAY_MAX", []*types.Type{types.ArrayOf(types.DecimalOf(4, 2))}, "DECIMAL(4, 2)"},
		{"ARRAY_SORT", []*types.Type{types.ArrayOf(str), str}, "ARRAY<STRING>"},
		{"ARRAY_REMOVE", []*types.Type{types.ArrayOf(i), i}, "ARRAY<INTEGER>"},
		{"ARRAY_JOIN", []*types.Type{types.ArrayOf(dbl)}, "STRING"},
		{"SLICE", []*types.Type{types.ArrayOf(str), i, i}, "ARRAY<STRING>"},
		{"GENERATE_SERIES", []*types.Type{i, i}, "ARRAY<INTEGER>"},
		{"GENERATE_SERIES", []*types.Type{bi, bi, i}, "ARRAY<BIGINT>"},
		{"GENERATE_SERIES", []*types.Type{i, bi}, "ARRAY<BIGINT>"},
		{"ENTRIES", []*types.Type{types.MapOf(str, bi), boo}, "ARRAY<STRUCT<`K` STRING, `V` BIGINT>>"},
		{"AS_MAP", []*types.Type{types.ArrayOf(str), types.ArrayOf(dbl)}, "MAP<STRING, DOUBLE>"},
		{"MAP_VALUES", []*types.Type{types.MapOf(str, types.ArrayOf(i))}, "ARRAY<ARRAY<INTEGER>>"},
		{"MAP_UNION", []*types.Type{types.MapOf(str, i), types.MapOf(str, i)}, "MAP<STRING, INTEGER>"},
		{"SPLIT_TO_MAP", []*types.Type{str, str, str}, "MAP<STRING, STRING>"},
		{"REGEXP_EXTRACT_ALL", []*types.Type{str, str, i}, "ARRAY<STRING>"},
		{"TO_BYTES", []*types.Type{str, str}, "BYTES"},
		{"DOUBLE_FROM_BYTES", []*types.Type{types.BytesType, str}, "DOUBLE"},
		{"GEO_DISTANCE", []*types.Type{i, dbl, dbl, dbl}, "DOUBLE"},
		{"GEO_DISTANCE", []*types.Type{dbl, dbl, dbl, dbl, str}, "DOUBLE"},
	} {
		res, err := r.Resolve(tc.name, tc.args)
		if err != nil {
			t.Errorf("%s%v: %v", tc.name, tc.args, err)
			continue
		}
		if got := res.Return.String(); got != tc.want {
			t.Errorf("%s%v returns %s, want %s", tc.name, tc.args, got, tc.want)
		}
	}
}

// TestResolveLambdaDefs resolves the lambda functions with a typer that
// plays the role of the expression compiler.
func TestResolveLambdaDefs(t *testing.T) {
	r := NewRegistry()
	body := func(ret *types.Type) LambdaTyper {
		return func(int, []*types.Type) (*types.Type, error) { return ret, nil }
	}
	for _, tc := range []struct {
		name string
		args []*types.Type
		body *types.Type
		want string
	}{
		{"TRANSFORM", []*types.Type{types.ArrayOf(types.IntegerType), nil}, types.StringType, "ARRAY<STRING>"},
		{"FILTER", []*types.Type{types.ArrayOf(types.IntegerType), nil}, types.BooleanType, "ARRAY<INTEGER>"},
		{"FILTER", []*types.Type{types.MapOf(types.StringType, types.DoubleType), nil}, types.BooleanType, "MAP<STRING, DOUBLE>"},
		{"TRANSFORM", []*types.Type{types.MapOf(types.StringType, types.DoubleType), nil, nil}, types.StringType, "MAP<STRING, STRING>"},
		{"REDUCE", []*types.Type{types.ArrayOf(types.IntegerType), types.BigintType, nil}, types.BigintType, "BIGINT"},
		{"REDUCE", []*types.Type{types.MapOf(types.StringType, types.IntegerType), types.IntegerType, nil}, types.IntegerType, "INTEGER"},
	} {
		res, err := r.ResolveLambdas(tc.name, tc.args, body(tc.body))
		if err != nil {
			t.Errorf("%s%v: %v", tc.name, tc.args, err)
			continue
		}
		if got := res.Return.String(); got != tc.want {
			t.Errorf("%s%v returns %s, want %s", tc.name, tc.args, got, tc.want)
		}
	}
}
