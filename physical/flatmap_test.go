package physical

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/types"
)

// rowRecorder keeps a copy of every row it is given.
type rowRecorder struct{ rows []string }

func (r *rowRecorder) Process(row *types.Row) error {
	r.rows = append(r.rows, fmt.Sprintf("%v@%d", row.Values, row.Time))
	return nil
}

// planFlatMap plans query over a stream S (K key, A and B integer arrays)
// and returns its FlatMap.
func planFlatMap(t *testing.T, query string) *planner.FlatMap {
	t.Helper()
	p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{})
	stmts, err := parser.Parse("CREATE STREAM s (k STRING KEY, a ARRAY<INT>, b ARRAY<INT>) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);" + query)
	if err != nil {
		t.Fatal(err)
	}
	src, err := p.CreateSource(stmts[0].(*ast.CreateSource))
	if err != nil {
		t.Fatal(err)
	}
	p.Catalog.Put(src)
	plan, err := p.PlanQuery(stmts[1].(*ast.Query))
	if err != nil {
		t.Fatal(err)
	}
	return plan.Root.Inputs()[0].(*planner.FlatMap)
}

// TestFlatMapZips checks the zip of two calls: as many rows as the longer
// list, NULL for the shorter, the input columns and ROWTIME copied; no
// row for empty or NULL lists or a stream's null row.
func TestFlatMapZips(t *testing.T) {
	fm := planFlatMap(t, "SELECT k, EXPLODE(a), EXPLODE(b) FROM s EMIT CHANGES;")
	rec := &rowRecorder{}
	op := newFlatMapOp(&TaskEnv{}, fm, rec)
	in := []*types.Row{
		{Values: []any{"x", []any{int32(1), int32(2), int32(3)}, []any{int32(9)}}, Time: 5},
		{Values: []any{"y", []any{}, nil}, Time: 6},
		{Values: []any{"z", nil, []any{int32(4)}}, Time: 7},
		{Values: []any{"t", nil, nil}, Tombstone: true},
	}
	for _, r := range in {
		if err := op.Process(r); err != nil {
			t.Fatal(err)
		}
	}
	want := "[x [1 2 3] [9] 1 9]@5 [x [1 2 3] [9] 2 <nil>]@5 [x [1 2 3] [9] 3 <nil>]@5 [z <nil> [4] <nil> 4]@7"
	if got := strings.Join(rec.rows, " "); got != want {
		t.Errorf("rows:\n got %s\nwant %s", got, want)
	}
}
