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

// plannedJoin is the join at the bottom of script's last statement (a
// push query; the statements before it create its sources).
func plannedJoin(t *testing.T, script string) *planner.Join {
	t.Helper()
	p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{})
	stmts, err := parser.Parse(script)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range stmts[:len(stmts)-1] {
		src, err := p.CreateSource(st.(*ast.CreateSource))
		if err != nil {
			t.Fatal(err)
		}
		p.Catalog.Put(src)
	}
	plan, err := p.PlanQuery(stmts[len(stmts)-1].(*ast.Query))
	if err != nil {
		t.Fatal(err)
	}
	_, bottom, err := linearize(plan.Root)
	if err != nil {
		t.Fatal(err)
	}
	j, ok := bottom.(*planner.Join)
	if !ok {
		t.Fatalf("the plan's bottom is a %T, not a join", bottom)
	}
	return j
}

// rekeyedJoinScript re-keys the stream o by its ID for the join with c.
const rekeyedJoinScript = `CREATE STREAM o (C STRING KEY, ID STRING) WITH (KAFKA_TOPIC='o', VALUE_FORMAT='JSON', PARTITIONS=1);
CREATE TABLE c (ID STRING PRIMARY KEY, NAME STRING) WITH (KAFKA_TOPIC='c', VALUE_FORMAT='JSON', PARTITIONS=1);
SELECT * FROM o JOIN c ON o.ID = c.ID EMIT CHANGES;`

// TestJoinRepartitionSinkRecords: the join's repartition sink writes a
// re-keyed row's join key, its value and its origin (after the input's
// user headers), a null join key as a null record key, whether its
// emitter keeps what it is given (each record its own bytes) or copies
// it (the sink's own record and buffers, rewritten per row: no
// allocation once they have their size); the source reads each record
// back as the row written.
func TestJoinRepartitionSinkRecords(t *testing.T) {
	j := plannedJoin(t, rekeyedJoinScript)
	const topic = "app-Join-repartition"
	long := strings.Repeat("a much longer order id ", 4)
	rows := []*types.Row{{Values: []any{"id1", "c1", "id1"}}, {Values: []any{long, "c22", long}},
		{Values: []any{nil, "c3", nil}, NullKey: true}, {Values: []any{"id4", "c4", "id4"}}}
	for _, copies := range []bool{false, true} {
		t.Run(fmt.Sprint("copies=", copies), func(t *testing.T) {
			var kept []OutRecord
			copier := &cloningCopier{}
			env := &TaskEnv{Emit: emitFunc(func(r *OutRecord) { kept = append(kept, *r) })}
			if copies {
				env.Emit = copier
			}
			b := &builder{opts: Options{AppID: "app"}, topo: &Topology{}, schemas: subjectSchemas{}}
			sink, err := newJoinRepartitionSink(env, j, planner.JoinLeft, b.internal(), topic)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range rows {
				env.current = &InRecord{Topic: "o", Partition: 0, Offset: int64(7 + i)}
				if i == 3 {
					env.current.Headers = []Header{{Key: "trace", Value: []byte("t1")}}
				}
				if err := sink.Process(r); err != nil {
					t.Fatal(err)
				}
			}
			if copies {
				kept = copier.recs
			}
			var read [][]any
			src, err := newJoinRepartitionSource(env, j, planner.JoinLeft, b.internal(), topic, processorFunc(func(row *types.Row) error {
				read = append(read, append([]any{row.NullKey}, row.Values...))
				return nil
			}))
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range kept {
				back := &InRecord{Topic: topic, Key: r.Key, Value: r.Value, Headers: r.Headers}
				if tp, p, off := origin(back); tp != "o" || p != 0 || off != int64(7+i) {
					t.Errorf("record %d from %s/%d/%d, want o/0/%d", i, tp, p, off, 7+i)
				}
				if err := src.ProcessRaw(back); err != nil {
					t.Fatal(err)
				}
			}
			want := fmt.Sprint([][]any{{false, "id1", "c1", "id1"}, {false, long, "c22", long}, {true, nil, "c3", nil}, {false, "id4", "c4", "id4"}})
			if got := fmt.Sprint(read); got != want {
				t.Errorf("read back %s, want %s", got, want)
			}
			if kept[2].Key != nil {
				t.Errorf("a null join key wrote key %q, want null", kept[2].Key)
			}
			if hs := kept[3].Headers; len(hs) != 2 || hs[0].Key != "trace" || string(hs[0].Value) != "t1" || hs[1].Key != originHeader {
				t.Errorf("the last record's headers %+v, want the input's trace header, then the origin", hs)
			}
			if !copies {
				if &kept[0].Value[0] == &kept[3].Value[0] || &kept[0].Key[0] == &kept[3].Key[0] {
					t.Error("records kept by the emitter share their bytes")
				}
				return
			}
			copier.discard = true
			allocs := testing.AllocsPerRun(100, func() {
				if err := sink.Process(rows[3]); err != nil {
					t.Fatal(err)
				}
			})
			if allocs > 0 {
				t.Errorf("a repartition record costs %.0f allocations before a copier, want 0", allocs)
			}
		})
	}
}
