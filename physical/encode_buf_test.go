package physical

import (
	"bytes"
	"fmt"
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

// copyingEmitter copies each record's bytes, as the Kafka runner does
// (BytesCopier), into one buffer of its own it can reset.
type copyingEmitter struct {
	buf   []byte
	spans []span // key, value of each record in turn
}

// span is a copied slice: buf[off:off+n], or nil.
type span struct {
	off, n int
	null   bool
}

func (e *copyingEmitter) CopiesBytes() bool { return true }

func (e *copyingEmitter) Emit(r *OutRecord) {
	for _, b := range [][]byte{r.Key, r.Value} {
		e.spans = append(e.spans, span{len(e.buf), len(b), b == nil})
		e.buf = append(e.buf, b...)
	}
}

// record returns the key and value of the i-th record emitted.
func (e *copyingEmitter) record(i int) (key, value []byte) {
	get := func(s span) []byte {
		if s.null {
			return nil
		}
		return e.buf[s.off : s.off+s.n]
	}
	return get(e.spans[2*i]), get(e.spans[2*i+1])
}

func (e *copyingEmitter) reset() { e.buf, e.spans = e.buf[:0], e.spans[:0] }

// TestSinkReusesItsBuffersForACopier: before an emitter that copies what
// it keeps, the sink encodes every record into the same buffers, so a
// record of a keyed stream, a keyless one (Nexmark q0's) and a windowed
// table costs no allocation once the buffers have their size; each
// record was still encoded right when emitted (a longer one after a
// shorter, a null key stays null, a delete a null value).
func TestSinkReusesItsBuffersForACopier(t *testing.T) {
	cols := []types.Column{{Name: "PAGE", Type: types.StringType, NS: types.ValueNS}, {Name: "MS", Type: types.BigintType, NS: types.ValueNS}}
	key := types.Column{Name: "USER_ID", Type: types.StringType, NS: types.KeyNS}
	for _, c := range []struct {
		name string
		keys []types.Column
		win  *planner.WindowInfo
	}{
		{"keyed", []types.Column{key}, nil},
		{"keyless", nil, nil},
		{"windowed", []types.Column{key}, &planner.WindowInfo{Kind: ast.Tumbling}},
	} {
		t.Run(c.name, func(t *testing.T) {
			target := &planner.Source{Topic: "out", KeyFormat: format.Spec{Name: format.Kafka}, ValueFormat: format.Spec{Name: format.JSON},
				Schema: &types.Schema{Columns: append(append([]types.Column{}, c.keys...), cols...)}, Window: c.win}
			emit := &copyingEmitter{}
			op, err := newSinkOp(&TaskEnv{Emit: emit}, target, nil)
			if err != nil {
				t.Fatal(err)
			}
			row := func(k any, page string) *types.Row {
				r := &types.Row{Values: []any{page, int64(1700000000000)}}
				if c.keys != nil {
					r.Values = append([]any{k}, r.Values...)
				}
				if c.win != nil {
					r.Window = &types.Window{Start: 60000, End: 120000}
				}
				return r
			}
			pages := []string{"/a", "/product/123", "/a/much/longer/page/than/the/two/before/it", "/b"}
			for i, p := range pages {
				if err := op.Process(row(fmt.Sprint("user_", i), p)); err != nil {
					t.Fatal(err)
				}
			}
			if c.keys != nil {
				if err := op.Process(row(nil, "/null-key")); err != nil {
					t.Fatal(err)
				}
				del := row("user_9", "")
				del.Tombstone = true
				if err := op.Process(del); err != nil {
					t.Fatal(err)
				}
			}
			for i, p := range pages {
				k, v := emit.record(i)
				if want := fmt.Sprintf(`{"PAGE":%q,"MS":1700000000000}`, p); string(v) != want {
					t.Errorf("record %d is %s, want %s", i, v, want)
				}
				if c.keys == nil && k != nil || c.keys != nil && !bytes.HasPrefix(k, []byte(fmt.Sprint("user_", i))) {
					t.Errorf("record %d has key %q", i, k)
				}
			}
			if c.keys != nil {
				nullKey, _ := emit.record(len(pages))
				_, deleted := emit.record(len(pages) + 1)
				if c.win == nil && nullKey != nil || deleted != nil {
					t.Errorf("null key %q, delete's value %q: want null both", nullKey, deleted)
				}
			}
			r := row("user_1", "/product/123")
			allocs := testing.AllocsPerRun(100, func() {
				emit.reset()
				if err := op.Process(r); err != nil {
					t.Fatal(err)
				}
			})
			if allocs > 0 {
				t.Errorf("a record costs the sink %.0f allocations, want 0", allocs)
			}
		})
	}
}
