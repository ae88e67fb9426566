package physical

import (
	"testing"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
	"github.com/sqlstream/sqlstream/state"
)

// keptEmitter keeps the key and value of the last record emitted.
type keptEmitter struct{ key, value []byte }

func (e *keptEmitter) Emit(r *OutRecord) { e.key, e.value = r.Key, r.Value }

// TestSinkEncodesInOneAllocationEach: once the sink has written a record,
// the next of a similar size costs one allocation for its key (KAFKA)
// and its JSON value together, not a buffer grown by append several
// times; the key and value are right, the key's capacity ends at its
// length (nothing appended to it can reach the value) and each record
// keeps its own bytes.
func TestSinkEncodesInOneAllocationEach(t *testing.T) {
	target := &planner.Source{Topic: "out", KeyFormat: format.Spec{Name: format.Kafka}, ValueFormat: format.Spec{Name: format.JSON},
		Schema: &types.Schema{Columns: []types.Column{
			{Name: "USER_ID", Type: types.StringType, NS: types.KeyNS},
			{Name: "PAGE", Type: types.StringType, NS: types.ValueNS},
			{Name: "AGENT", Type: types.StringType, NS: types.ValueNS},
			{Name: "MS", Type: types.BigintType, NS: types.ValueNS},
		}}}
	emit := &keptEmitter{}
	op, err := newSinkOp(&TaskEnv{Emit: emit}, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	row := &types.Row{Values: []any{"user_12345", "/product/123", "Mozilla/5.0 (X11; Linux)", int64(1700000000000)}}
	if err := op.Process(row); err != nil {
		t.Fatal(err)
	}
	first := emit.value
	const want = `{"PAGE":"/product/123","AGENT":"Mozilla/5.0 (X11; Linux)","MS":1700000000000}`
	if string(first) != want {
		t.Fatalf("value %s, want %s", first, want)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if err := op.Process(row); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Errorf("a record costs %.0f allocations, want 1 (key and value)", allocs)
	}
	if string(emit.key) != "user_12345" || cap(emit.key) != len(emit.key) || string(emit.value) != want {
		t.Errorf("record %q (capacity %d) = %s, want user_12345 = %s", emit.key, cap(emit.key), emit.value, want)
	}
	if string(first) != want || &first[0] == &emit.value[0] {
		t.Errorf("records share their value bytes: %s", first)
	}
}

// TestStreamWindowPutReusesItsBuffer: a join window's put encodes the row
// into a buffer it reuses (the store copies what it keeps), so the rows
// read back are each their own.
func TestStreamWindowPutReusesItsBuffer(t *testing.T) {
	db, err := state.OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	src := &planner.Source{Schema: &types.Schema{Columns: []types.Column{{Name: "V", Type: types.StringType}}}}
	sw, err := openStreamWindow(&TaskEnv{Stores: dbStores{db}}, "KSTREAM-JOINTHIS-0000000008-store", src, jsonKeys, jsonKeys,
		[]*types.Type{types.StringType}, &ast.JoinWindow{Before: 1000, After: 1000}, 100000, false)
	if err != nil {
		t.Fatal(err)
	}
	k := []byte(`"k"`)
	for i, v := range []string{"first", "second, longer", "3"} {
		if _, err := sw.put(k, []any{v}, int64(i)); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	if err := sw.w.Fetch(k, 0, 10, func(_ int64, v []byte) bool {
		got = append(got, string(v))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{`{"V":"first"}`, `{"V":"second, longer"}`, `{"V":"3"}`}
	if len(got) != len(want) {
		t.Fatalf("store holds %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d is %s, want %s", i, got[i], want[i])
		}
	}
}

// TestRepartitionSinkEncodesInFewAllocations: the GROUP BY repartition
// sink writes its key and value into buffers sized from the last record
// and its origin header without fmt, so a record costs five allocations
// (the record, its key, value, headers and origin value; ten with
// Sprintf and buffers grown from empty); the origin reads back as the
// input's topic, partition and offset, the input's user headers are
// kept and its own headers are not written into.
func TestRepartitionSinkEncodesInFewAllocations(t *testing.T) {
	prep := &types.Schema{Columns: []types.Column{
		{Name: "PAGE", Type: types.StringType, NS: types.KeyNS},
		{Name: "USER_ID", Type: types.StringType, NS: types.ValueNS},
		{Name: "MS", Type: types.BigintType, NS: types.ValueNS},
	}}
	var got *OutRecord
	env := &TaskEnv{Emit: emitFunc(func(r *OutRecord) { got = r })}
	sink, err := newRepartitionSink(env, "app-Aggregate-GroupBy-repartition", prep, format.Spec{Name: format.Kafka}, format.Spec{Name: format.JSON})
	if err != nil {
		t.Fatal(err)
	}
	in := &InRecord{Topic: "pageviews", Partition: 3, Offset: 1234567,
		Headers: make([]Header, 1, 4)}
	in.Headers[0] = Header{Key: "trace", Value: []byte("t1")}
	env.current = in
	row := &types.Row{Values: []any{"/product/123", "user_12345", int64(1700000000000)}}
	if err := sink.Process(row); err != nil {
		t.Fatal(err)
	}
	if string(got.Key) != "/product/123" || string(got.Value) != `{"USER_ID":"user_12345","MS":1700000000000}` {
		t.Fatalf("record %q %q", got.Key, got.Value)
	}
	if len(got.Headers) != 2 || got.Headers[0].Key != "trace" || got.Headers[1].Key != originHeader {
		t.Fatalf("headers %+v", got.Headers)
	}
	if in.Headers[:cap(in.Headers)][1].Key != "" {
		t.Errorf("the sink wrote into its input's headers: %+v", in.Headers[:cap(in.Headers)])
	}
	back := &InRecord{Topic: "app-Aggregate-GroupBy-repartition", Headers: got.Headers}
	if topic, p, off := origin(back); topic != "pageviews" || p != 3 || off != 1234567 {
		t.Errorf("origin %s/%d/%d, want pageviews/3/1234567", topic, p, off)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if err := sink.Process(row); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 5 {
		t.Errorf("a record costs %.0f allocations, want at most 5 (record, key, value, headers, origin)", allocs)
	}
}

type emitFunc func(*OutRecord)

func (f emitFunc) Emit(r *OutRecord) { f(r) }
