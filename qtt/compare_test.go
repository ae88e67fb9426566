package qtt

import (
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

// j parses JSON test text into a JSON-ish value.
func j(t *testing.T, text string) any {
	t.Helper()
	v, err := DecodeJSON([]byte(text))
	if err != nil {
		t.Fatalf("bad JSON %q: %v", text, err)
	}
	return v
}

func TestCompareValues(t *testing.T) {
	dec := types.DecimalOf(6, 4)
	row := types.StructOf(types.Field{Name: "D", Type: dec}, types.Field{Name: "X", Type: types.DoubleType})
	tests := []struct {
		name     string
		exp, act string
		typ      *types.Type
		mismatch string // substring of the mismatch; "" means equal
	}{
		{"equal objects", `{"A":1,"B":"x"}`, `{"A":1,"B":"x"}`, nil, ""},
		{"field names ignore case", `{"id":1}`, `{"ID":1}`, nil, ""},
		{"exact names first", `{"FOO":"a","foo":"b"}`, `{"foo":"b","FOO":"a"}`, nil, ""},
		{"exact names first, mismatch", `{"FOO":"a","foo":"b"}`, `{"foo":"a","FOO":"b"}`, nil, `.FOO: different values: expected "a", got "b"`},
		{"missing field", `{"A":1,"B":null}`, `{"A":1}`, nil, ".B: missing field: expected null, got no such field"},
		{"null stands for a missing field of a same-size object", `{"A":1,"B":null}`, `{"A":1,"C":null}`, nil, ""},
		{"missing non-null field", `{"A":1,"B":2}`, `{"A":1,"C":2}`, nil, ".B: missing field: expected 2, got no such field"},
		{"extra field", `{"A":1}`, `{"A":1,"C":2}`, nil, ".C: unexpected field: expected no such field, got 2"},
		{"null vs value", `{"A":null}`, `{"A":1}`, nil, "null mismatch"},
		{"tombstone", `null`, `null`, nil, ""},
		{"tombstone vs record", `null`, `{"A":1}`, nil, "null mismatch"},
		{"double tolerance", `1.0000001`, `1.0000002`, types.DoubleType, ""},
		{"double differs", `1.1`, `1.2`, types.DoubleType, "numbers differ"},
		{"double large relative", `123456789012.0`, `123456789012.0001`, types.DoubleType, ""},
		{"integer 1 vs 1.0 unknown type", `1`, `1.0`, nil, ""},
		{"bigint exact", `10`, `11`, types.BigintType, "numbers differ"},
		{"bigint no tolerance", `1`, `1.0000001`, types.BigintType, "numbers differ"},
		{"decimal exact", `10.0000`, `10.0000`, dec, ""},
		{"decimal scale matters", `10.0000`, `10.0`, dec, "scale"},
		{"decimal in struct", `{"D":1.5000,"X":2}`, `{"d":1.5,"x":2.0000000001}`, row, ".D: decimals differ"},
		{"double in struct", `{"D":1.5000,"X":2}`, `{"d":1.5000,"x":2.0000000001}`, row, ""},
		{"unknown type tolerant", `0.1`, `0.10000000001`, nil, ""},
		{"decimal given as text", `"1.50"`, `1.50`, dec, ""},
		{"decimal text scale", `"1.5"`, `1.50`, dec, "scale"},
		{"string vs number", `"1"`, `1`, nil, "different values"},
		{"number vs string", `1`, `"1"`, nil, "expected a number"},
		{"arrays", `[1,2,3]`, `[1,2,3]`, nil, ""},
		{"array element", `[1,2,3]`, `[1,5,3]`, nil, "[1]: numbers differ"},
		{"array length", `[1,2]`, `[1,2,3]`, nil, "expected 2 elements, got 3"},
		{"map keys", `{"a":1}`, `{"A":1}`, types.MapOf(types.StringType, types.IntegerType), ""},
		{"bools", `true`, `false`, nil, "different values"},
		{"nested path", `{"S":{"L":[{"V":1}]}}`, `{"S":{"L":[{"V":2}]}}`, nil, ".S.L[0].V"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := CompareValues(j(t, tc.exp), j(t, tc.act), tc.typ)
			switch {
			case tc.mismatch == "" && m != nil:
				t.Fatalf("unexpected mismatch: %v", m)
			case tc.mismatch != "" && m == nil:
				t.Fatalf("expected a mismatch containing %q", tc.mismatch)
			case m != nil && !strings.Contains(m.Error(), tc.mismatch):
				t.Fatalf("mismatch %q does not contain %q", m.Error(), tc.mismatch)
			}
		})
	}
}
