package expr

import (
	"fmt"
	"testing"

	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/types"
)

func mustCompile(t *testing.T, text string, s *types.Schema) *Compiled {
	t.Helper()
	e, err := parser.ParseExpr(text)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	c, err := Compile(e, SchemaScope(s, nil, false), functions.NewRegistry())
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return c
}

func TestEvalShortRow(t *testing.T) {
	s := &types.Schema{Columns: []types.Column{
		{Name: "K", Type: types.StringType, NS: types.KeyNS},
		{Name: "V", Type: types.BigintType},
	}}
	row := &types.Row{Values: []any{"k"}, Tombstone: true}
	for text, want := range map[string]any{"V IS NULL": true, "COALESCE(V, 7)": int64(7), "K": "k"} {
		if got, err := mustCompile(t, text, s).Eval(row); err != nil || got != want {
			t.Errorf("%s on a tombstone = %v, %v; want %v", text, got, err, want)
		}
	}
}

func TestEvalBool(t *testing.T) {
	s := &types.Schema{Columns: []types.Column{{Name: "B", Type: types.BooleanType}}}
	c := mustCompile(t, "B", s)
	for _, c2 := range []struct {
		v    any
		want bool
	}{{true, true}, {false, false}, {nil, false}} {
		if got, err := c.EvalBool(&types.Row{Values: []any{c2.v}}); err != nil || got != c2.want {
			t.Errorf("EvalBool(%v) = %v, %v", c2.v, got, err)
		}
	}
}

func TestConstantFolding(t *testing.T) {
	s := &types.Schema{Columns: []types.Column{{Name: "X", Type: types.IntegerType}}}
	cases := map[string]bool{
		"1 + 2 * 3":           true,
		"UCASE('a') || 'b'":   true,
		"X + 1":               false,
		"RANDOM()":            false,
		"LEN(UUID())":         false,
		"CAST('1' AS BIGINT)": true,
		"1 / 0":               false, // the error is reported per row
		"ARRAY[1, 2][1]":      true,
	}
	for text, want := range cases {
		if got := mustCompile(t, text, s).IsConstant(); got != want {
			t.Errorf("IsConstant(%s) = %v, want %v", text, got, want)
		}
	}
}

func TestVolatileCallsDiffer(t *testing.T) {
	c := mustCompile(t, "UUID()", &types.Schema{})
	a, _ := c.Eval(&types.Row{})
	b, _ := c.Eval(&types.Row{})
	if a == b {
		t.Errorf("UUID() returned %v twice", a)
	}
}

// TestConcurrentEval shares one compiled expression between goroutines,
// as tasks of a query do (run with -race).
func TestConcurrentEval(t *testing.T) {
	s := &types.Schema{Columns: []types.Column{{Name: "S", Type: types.StringType}, {Name: "P", Type: types.StringType}}}
	c := mustCompile(t, "S LIKE P AND FORMAT_TIMESTAMP(PARSE_TIMESTAMP(S, 'yyyy-MM-dd'), 'yyyy') = '2020' AND TRANSFORM(ARRAY[1, 2], x => x + LEN(S))[2] = 12", s)
	done := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func() {
			for i := 0; i < 200; i++ {
				ok, err := c.EvalBool(&types.Row{Values: []any{"2020-01-01", "2020-%"}})
				if err != nil || !ok {
					done <- fmt.Errorf("iteration %d: %v, %v", i, ok, err)
					return
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestEvalRecoversFromBadValues(t *testing.T) {
	s := &types.Schema{Columns: []types.Column{{Name: "S", Type: types.StringType}}}
	c := mustCompile(t, "UCASE(S) = 'X'", s)
	if _, err := c.Eval(&types.Row{Values: []any{int32(1)}}); err == nil {
		t.Errorf("a value of the wrong type evaluated without error")
	}
}
