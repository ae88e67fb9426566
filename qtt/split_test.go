package qtt

import (
	"reflect"
	"testing"
)

func TestSplitStatements(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"two", "CREATE A;\nCREATE B;", []string{"CREATE A;", "CREATE B;"}},
		{"no final semicolon", "A; B", []string{"A;", "B"}},
		{"string with semicolon", "SELECT 'a;''b' FROM X;", []string{"SELECT 'a;''b' FROM X;"}},
		{"quoted identifiers", "SELECT `a;b`, \"c;d\" FROM X;", []string{"SELECT `a;b`, \"c;d\" FROM X;"}},
		{"line comment", "-- x; y\nA; -- z;\nB;", []string{"A;", "B;"}},
		{"block comment", "/* a; b */ A /* ; */;", []string{"A /* ; */;"}},
		{"empty pieces", " ;; \n -- only\n", nil},
		{"comment marker in string", "SELECT '--;' FROM X;", []string{"SELECT '--;' FROM X;"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := SplitStatements(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("SplitStatements(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
