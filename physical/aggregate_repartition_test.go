package physical

import (
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// TestRepartitionRecordInOneAllocation: the GROUP BY repartition sink
// writes a record's key, value, origin and retract flag into one buffer,
// in the record's allocation with its headers when the last record's
// bytes fit there (the first record's buffer is its own); each record keeps
// its own bytes (the producer holds them until it is written), and the
// headers read back as the source reads them.
func TestRepartitionRecordInOneAllocation(t *testing.T) {
	prep := &types.Schema{Columns: []types.Column{
		{Name: "PAGE", Type: types.StringType, NS: types.KeyNS},
		{Name: "MS", Type: types.BigintType, NS: types.ValueNS},
	}}
	var got []*OutRecord
	env := &TaskEnv{Emit: emitFunc(func(r *OutRecord) { got = append(got, r) })}
	sink, err := newRepartitionSink(env, "app-Aggregate-GroupBy-repartition", prep, format.Spec{Name: format.Kafka}, format.Spec{Name: format.JSON})
	if err != nil {
		t.Fatal(err)
	}
	env.current = &InRecord{Topic: "pageviews", Partition: 1, Offset: 42}
	long := "/" + strings.Repeat("long", 20)
	rows := []*types.Row{{Values: []any{"/a", int64(1)}}, {Values: []any{"/bb", int64(22)}, Retract: true},
		{Values: []any{"/ccc", int64(333)}, Retract: true, Quiet: true},
		// Past the record's inline bytes: after a short record (its
		// bytes outgrow the inline room), then after a long one.
		{Values: []any{long, int64(4)}}, {Values: []any{long, int64(5)}}, {Values: []any{"/d", int64(6)}}}
	for _, r := range rows {
		if err := sink.Process(r); err != nil {
			t.Fatal(err)
		}
	}
	want := []struct {
		key, value     string
		retract, quiet bool
	}{{"/a", `{"MS":1}`, false, false}, {"/bb", `{"MS":22}`, true, false}, {"/ccc", `{"MS":333}`, true, true},
		{long, `{"MS":4}`, false, false}, {long, `{"MS":5}`, false, false}, {"/d", `{"MS":6}`, false, false}}
	for i, w := range want {
		r := got[i]
		back := &InRecord{Topic: r.Topic, Key: r.Key, Value: r.Value, Headers: r.Headers}
		topic, p, off := origin(back)
		src, err := newRepartitionSource(env, prep, format.Spec{Name: format.Kafka}, format.Spec{Name: format.JSON}, processorFunc(func(row *types.Row) error {
			if row.Retract != w.retract || row.Quiet != w.quiet {
				t.Errorf("record %d reads back retract %v quiet %v, want %v %v", i, row.Retract, row.Quiet, w.retract, w.quiet)
			}
			return nil
		}))
		if err != nil {
			t.Fatal(err)
		}
		if err := src.ProcessRaw(back); err != nil {
			t.Fatal(err)
		}
		if string(r.Key) != w.key || string(r.Value) != w.value || topic != "pageviews" || p != 1 || off != 42 {
			t.Errorf("record %d: %q %q from %s/%d/%d, want %q %q from pageviews/1/42", i, r.Key, r.Value, topic, p, off, w.key, w.value)
		}
	}
	allocs := testing.AllocsPerRun(100, func() {
		if err := sink.Process(rows[1]); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Errorf("a repartition record costs %.0f allocations, want 1 (the record with its headers and bytes)", allocs)
	}
	src, err := newRepartitionSource(env, prep, format.Spec{Name: format.Kafka}, format.Spec{Name: format.JSON}, processorFunc(func(*types.Row) error { return nil }))
	if err != nil {
		t.Fatal(err)
	}
	back := &InRecord{Topic: got[1].Topic, Key: got[1].Key, Value: got[1].Value, Headers: got[1].Headers}
	allocs = testing.AllocsPerRun(100, func() {
		if err := src.ProcessRaw(back); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%.1f allocations per record read back", allocs)
	if allocs > maxRepartitionReadAllocs {
		t.Errorf("reading a repartition record back costs %.0f allocations, want at most %d", allocs, maxRepartitionReadAllocs)
	}
}

// maxRepartitionReadAllocs: the row is the source's own, reused, and the
// KAFKA key decodes into the task's key arena (a slab and a chunk of
// boxes for many records); 4 before the row was reused, 2 before the
// arena (the key's string and its box).
const maxRepartitionReadAllocs = 0

// processorFunc is a Processor of a function.
type processorFunc func(*types.Row) error

func (f processorFunc) Process(row *types.Row) error { return f(row) }

// cloningCopier says it copies what it keeps (BytesCopier), as the Kafka
// runner does, and keeps a deep copy of each record (key, value and
// header values), so a test sees what the runner would have produced
// while the operator reuses its buffers.
type cloningCopier struct {
	recs    []OutRecord
	discard bool // keep nothing (for counting the operator's allocations)
}

func (e *cloningCopier) CopiesBytes() bool { return true }

func (e *cloningCopier) Emit(r *OutRecord) {
	if e.discard {
		return
	}
	c := *r
	c.Key, c.Value = clone(r.Key), clone(r.Value)
	c.Headers = make([]Header, len(r.Headers))
	for i, h := range r.Headers {
		c.Headers[i] = Header{Key: h.Key, Value: clone(h.Value)}
	}
	e.recs = append(e.recs, c)
}

// clone copies b, nil staying nil.
func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// TestRepartitionSinkReusesItsRecordForACopier: before an emitter that
// copies what it keeps, the GROUP BY repartition sink writes every record
// into its own record, headers and buffer, so a record costs no
// allocation once the buffer has its size; every record was still whole
// when emitted (a longer one after shorter ones, a retraction's flag,
// the origin and the input's user headers), as the source reads it back.
func TestRepartitionSinkReusesItsRecordForACopier(t *testing.T) {
	prep := &types.Schema{Columns: []types.Column{
		{Name: "PAGE", Type: types.StringType, NS: types.KeyNS},
		{Name: "MS", Type: types.BigintType, NS: types.ValueNS},
	}}
	emit := &cloningCopier{}
	env := &TaskEnv{Emit: emit}
	sink, err := newRepartitionSink(env, "app-Aggregate-GroupBy-repartition", prep, format.Spec{Name: format.Kafka}, format.Spec{Name: format.JSON})
	if err != nil {
		t.Fatal(err)
	}
	long := "/" + strings.Repeat("long", 20)
	rows := []*types.Row{{Values: []any{"/a", int64(1)}}, {Values: []any{"/bb", int64(22)}, Retract: true},
		{Values: []any{long, int64(333)}, Retract: true, Quiet: true}, {Values: []any{"/d", int64(4)}}}
	for i, r := range rows {
		env.current = &InRecord{Topic: "pageviews", Partition: 1, Offset: int64(40 + i)}
		if i == 3 {
			env.current.Headers = []Header{{Key: "trace", Value: []byte("t1")}}
		}
		if err := sink.Process(r); err != nil {
			t.Fatal(err)
		}
	}
	want := []struct {
		key, value     string
		retract, quiet bool
	}{{"/a", `{"MS":1}`, false, false}, {"/bb", `{"MS":22}`, true, false}, {long, `{"MS":333}`, true, true}, {"/d", `{"MS":4}`, false, false}}
	for i, w := range want {
		r := emit.recs[i]
		back := &InRecord{Topic: r.Topic, Key: r.Key, Value: r.Value, Headers: r.Headers}
		var retract, quiet bool
		src, err := newRepartitionSource(env, prep, format.Spec{Name: format.Kafka}, format.Spec{Name: format.JSON}, processorFunc(func(row *types.Row) error {
			retract, quiet = row.Retract, row.Quiet
			return nil
		}))
		if err != nil {
			t.Fatal(err)
		}
		if err := src.ProcessRaw(back); err != nil {
			t.Fatal(err)
		}
		topic, p, off := origin(back)
		if string(r.Key) != w.key || string(r.Value) != w.value || topic != "pageviews" || p != 1 || off != int64(40+i) ||
			retract != w.retract || quiet != w.quiet {
			t.Errorf("record %d: %q %q from %s/%d/%d, retract %v quiet %v; want %q %q from pageviews/1/%d, %v %v",
				i, r.Key, r.Value, topic, p, off, retract, quiet, w.key, w.value, 40+i, w.retract, w.quiet)
		}
	}
	if hs := emit.recs[3].Headers; len(hs) != 2 || hs[0].Key != "trace" || string(hs[0].Value) != "t1" {
		t.Errorf("the last record's headers %+v, want the input's trace header before the origin", hs)
	}
	emit.discard = true
	allocs := testing.AllocsPerRun(100, func() {
		if err := sink.Process(rows[1]); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0 {
		t.Errorf("a repartition record costs %.0f allocations before a copier, want 0", allocs)
	}
}

// TestRepartitionCompactNames: a JSON repartition record names each
// argument A<hash of its prep name> (compactPrep), in less than half the
// bytes, and the source reads the rows back, NULLs included; the compact
// name of a prep name is the same in every plan (an upgraded query's
// in-flight records keep their arguments). Other formats, and a single
// unwrapped argument, keep prep.
func TestRepartitionCompactNames(t *testing.T) {
	prep := &types.Schema{Columns: []types.Column{
		{Name: "PAGE", Type: types.StringType, NS: types.KeyNS},
		{Name: "KSQL_AGG_SUM_028CFB19_ARG_0", Type: types.BigintType, NS: types.ValueNS},
		{Name: "KSQL_AGG_LATEST_BY_OFFSET_EB9E72FF_ARG_0", Type: types.StringType, NS: types.ValueNS},
	}}
	json := format.Spec{Name: format.JSON}
	wire := compactPrep(prep, json)
	again := compactPrep(&types.Schema{Columns: []types.Column{prep.Columns[0], prep.Columns[2], prep.Columns[1]}}, json)
	if wire.Columns[0] != prep.Columns[0] || len(wire.Columns) != 3 {
		t.Fatalf("compact layout %v, want the key and two arguments", wire.Columns)
	}
	for i, c := range wire.Columns[1:] {
		if len(c.Name) != 9 || c.Name[0] != 'A' || c.Type != prep.Columns[1+i].Type || c.NS != types.ValueNS {
			t.Errorf("argument %d is %v, want A and 8 hex digits, of %v", i, c, prep.Columns[1+i])
		}
		if again.Columns[2-i].Name != c.Name {
			t.Errorf("argument %s is %s in one plan, %s in another", prep.Columns[1+i].Name, c.Name, again.Columns[2-i].Name)
		}
	}
	rows := []*types.Row{{Values: []any{"/a", int64(7), "Google"}}, {Values: []any{"/b", nil, "x"}}, {Values: []any{"/c", int64(-1), nil}}}
	write := func(s *types.Schema) []*OutRecord {
		var got []*OutRecord
		env := &TaskEnv{Emit: emitFunc(func(r *OutRecord) { got = append(got, r) })}
		sink, err := newRepartitionSink(env, "app-Aggregate-GroupBy-repartition", s, format.Spec{Name: format.Kafka}, json)
		if err != nil {
			t.Fatal(err)
		}
		env.current = &InRecord{Topic: "pageviews", Partition: 1, Offset: 42}
		for _, r := range rows {
			if err := sink.Process(r); err != nil {
				t.Fatal(err)
			}
		}
		return got
	}
	compact, named := write(wire), write(prep)
	if len(compact[0].Value) >= len(named[0].Value)/2 {
		t.Errorf("compact value %s, with prep names %s: want less than half the bytes", compact[0].Value, named[0].Value)
	}
	var read []*types.Row
	src, err := newRepartitionSource(&TaskEnv{}, wire, format.Spec{Name: format.Kafka}, json, processorFunc(func(row *types.Row) error {
		read = append(read, &types.Row{Values: append([]any(nil), row.Values...)})
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range compact {
		if err := src.ProcessRaw(&InRecord{Topic: r.Topic, Key: r.Key, Value: r.Value, Headers: r.Headers}); err != nil {
			t.Fatal(err)
		}
	}
	for i, r := range rows {
		if len(read) != len(rows) || !types.ValuesEqual(read[i].Values, r.Values) {
			t.Fatalf("%s read back as %v, want %v", compact[i].Value, read[min(i, len(read)-1)].Values, r.Values)
		}
	}
	unwrapped := false
	for _, f := range []format.Spec{{Name: format.Delimited}, {Name: format.JSON, WrapSingle: &unwrapped}} {
		p := &types.Schema{Columns: prep.Columns[:2]}
		if w := compactPrep(p, f); w != p {
			t.Errorf("%s (wrap %v) compacts to %v", f.Name, f.WrapSingle, w.Columns)
		}
	}
}
