package avro

import (
	"fmt"
	"strings"
	"sync"

	hamba "github.com/hamba/avro/v2"
	"github.com/sqlstream/sqlstream/sql/format/internal/boxes"
	"github.com/sqlstream/sqlstream/sql/types"
)

// decFn reads one value of a compiled writer type as its reader type.
type decFn func(r *reader) (any, error)

// skipFn reads past one value of a writer type the reader does not want.
type skipFn func(r *reader) error

// step is one writer field of a record: decoded into slot dst, or skipped
// when dst < 0.
type step struct {
	dst  int
	dec  decFn
	skip skipFn
}

// rowDecoder is a compiled (writer schema, reader columns) pair: a flat
// program of one step per writer field, or one decFn for an unwrapped
// column.
type rowDecoder struct {
	steps  []step
	single decFn
	ncols  int
	// root, when set, reads a nullable root record instead of steps.
	root func(*reader, []any) error
	// words and strs size the first chunks of a record's arenas (box.go):
	// how many columns box an 8-byte value or a string.
	words, strs int
	// readers are the decodes' readers: one escapes to the heap (the
	// compiled functions take it), an allocation per record unless
	// reused. The values decoded point into the arena's chunks and the
	// string slab, never into the reader.
	readers sync.Pool
}

var _ Decoder = (*rowDecoder)(nil)

// NewDecoder compiles, once per writer schema, a decoder from writer into
// cols, the reader's columns. Writer fields are matched to columns by name
// (exactly, else ignoring case); writer fields no column wants are
// skipped, columns the writer lacks read as NULL, and Avro's promotions
// apply (int → long → float → double, string ↔ bytes), plus the logical
// types (date, time-millis/-micros, timestamp-millis/-micros, decimal).
// A writer type no reader column can take is an error naming the column.
func NewDecoder(writer string, refs Refs, cols []types.Column, o Options) (Decoder, error) {
	s, err := parse(writer, refs)
	if err != nil {
		return nil, err
	}
	c := &compiler{}
	if o.Unwrapped {
		if len(cols) != 1 {
			return nil, fmt.Errorf("an unwrapped Avro value decodes into exactly one column, got %d", len(cols))
		}
		fn, err := c.column(s, cols[0].Type, cols[0].Name, o.Read == nil || o.Read[0])
		if err != nil {
			return nil, err
		}
		d := &rowDecoder{single: fn, ncols: 1}
		d.count(cols, o.Read)
		return d, nil
	}
	rec, nullable, ok := rootRecord(s)
	if !ok {
		return nil, fmt.Errorf("the writer's Avro schema is a %s, not a record: declare the source with a single column and WRAP_SINGLE_VALUE=false", s.Type())
	}
	names := make([]types.Field, len(cols))
	for i, col := range cols {
		names[i] = types.Field{Name: col.Name, Type: col.Type}
	}
	steps, err := c.steps(rec, names, "", o.Read)
	if err != nil {
		return nil, err
	}
	d := &rowDecoder{steps: steps, ncols: len(cols)}
	if nullable {
		d.steps, d.root = nil, c.nullableRoot(s.(*hamba.UnionSchema), steps, len(cols))
	}
	d.count(cols, o.Read)
	return d, nil
}

// nullableRoot reads a root union [null, record] into the row: the
// record's fields, or all NULL for the null branch.
func (c *compiler) nullableRoot(u *hamba.UnionSchema, steps []step, n int) func(*reader, []any) error {
	null, _ := u.Indices()
	return func(r *reader, dst []any) error {
		i, err := r.long("")
		if err != nil {
			return err
		}
		if i < 0 || i >= int64(len(u.Types())) {
			return r.fail("", "union branch %d out of range (the union has %d)", i, len(u.Types()))
		}
		if int(i) == null {
			return nil
		}
		return runSteps(r, steps, dst)
	}
}

// count sizes the arena's first chunks by the columns decoded (read
// marks them; nil: all).
func (d *rowDecoder) count(cols []types.Column, read []bool) {
	for i, c := range cols {
		if read != nil && !read[i] {
			continue
		}
		switch c.Type.Kind {
		case types.KindString:
			d.strs++
		case types.KindInteger, types.KindBigint, types.KindDouble, types.KindDate, types.KindTime, types.KindTimestamp:
			d.words++
		}
	}
}

// Decode implements Decoder.
func (d *rowDecoder) Decode(payload []byte, dst []any) error {
	if len(dst) != d.ncols {
		return fmt.Errorf("avro: decoding into %d slots for %d columns", len(dst), d.ncols)
	}
	r, _ := d.readers.Get().(*reader)
	if r == nil {
		r = new(reader)
	}
	*r = reader{b: payload, arena: boxes.New(d.words, d.strs)}
	err := d.decode(r, dst)
	*r = reader{} // nothing of the record stays with the pooled reader
	d.readers.Put(r)
	return err
}

func (d *rowDecoder) DecodeScratch(s *Scratch, payload []byte, dst []any) error {
	if len(dst) != d.ncols {
		return fmt.Errorf("avro: decoding into %d slots for %d columns", len(dst), d.ncols)
	}
	r := &s.r
	r.b, r.off, r.shared = payload, 0, &s.slab
	err := d.decode(r, dst)
	r.b = nil // Decode never keeps payload
	return err
}

func (d *rowDecoder) decode(r *reader, dst []any) error {
	if d.single != nil {
		v, err := d.single(r)
		if err != nil {
			return err
		}
		dst[0] = v
		return r.end()
	}
	clear(dst)
	var err error
	if d.root != nil {
		err = d.root(r, dst)
	} else {
		err = runSteps(r, d.steps, dst)
	}
	if err != nil {
		return err
	}
	return r.end()
}

func runSteps(r *reader, steps []step, dst []any) error {
	for i := range steps {
		st := &steps[i]
		if st.dst < 0 {
			if err := st.skip(r); err != nil {
				return err
			}
			continue
		}
		v, err := st.dec(r)
		if err != nil {
			return err
		}
		dst[st.dst] = v
	}
	return nil
}

// end rejects bytes after the value: they mean the payload was written
// with another schema than the one its id names.
func (r *reader) end() error {
	if r.off != len(r.b) {
		return r.fail("", "%d bytes left after the value: the payload does not match its schema", len(r.b)-r.off)
	}
	return nil
}

// compiler compiles decoders and encoders; stack holds the writer records
// being compiled, to refuse recursive schemas.
type compiler struct {
	stack []string
}

func (c *compiler) push(rec *hamba.RecordSchema, path string) error {
	for _, n := range c.stack {
		if n == rec.FullName() {
			return fmt.Errorf("the Avro schema is recursive: record %s contains itself (at %s); ksqlDB does not support recursive schemas", n, path)
		}
	}
	c.stack = append(c.stack, rec.FullName())
	return nil
}

func (c *compiler) pop() { c.stack = c.stack[:len(c.stack)-1] }

// steps compiles a writer record against the reader's fields, of which
// it decodes those read marks (nil: all) and checks the others
// (column).
func (c *compiler) steps(rec *hamba.RecordSchema, fields []types.Field, path string, read []bool) ([]step, error) {
	if err := c.push(rec, path); err != nil {
		return nil, err
	}
	defer c.pop()
	steps := make([]step, len(rec.Fields()))
	for i, f := range rec.Fields() {
		st := step{dst: fieldIndex(fields, f.Name())}
		var err error
		switch {
		case st.dst < 0:
			st.skip, err = c.skip(f.Type(), join(path, f.Name()))
		case read != nil && !read[st.dst]:
			st.skip, err = c.check(f.Type(), fields[st.dst].Type, join(path, fields[st.dst].Name))
			st.dst = -1
		default:
			st.dec, err = c.dec(f.Type(), fields[st.dst].Type, join(path, fields[st.dst].Name))
		}
		if err != nil {
			return nil, err
		}
		steps[i] = st
	}
	return steps, nil
}

// fieldIndex finds the Avro field name among fields, exactly, else
// ignoring case, else as the Avro name of a qualified column (A.B is
// written A_B; see Schema).
func fieldIndex(fields []types.Field, name string) int {
	t := types.Type{Fields: fields}
	if i := t.Field(name); i >= 0 {
		return i
	}
	for i, f := range fields {
		if strings.Contains(f.Name, ".") && strings.EqualFold(strings.ReplaceAll(f.Name, ".", "_"), name) {
			return i
		}
	}
	return -1
}

// dec compiles a decoder of writer type w into reader type t.
func (c *compiler) dec(w hamba.Schema, t *types.Type, path string) (decFn, error) {
	w = deref(w)
	switch w := w.(type) {
	case *hamba.UnionSchema:
		return c.union(w, t, path)
	case *hamba.NullSchema:
		return func(*reader) (any, error) { return nil, nil }, nil
	case *hamba.PrimitiveSchema:
		return primitiveDec(w, t, path)
	case *hamba.FixedSchema:
		return fixedDec(w, t, path)
	case *hamba.EnumSchema:
		return enumDec(w, t, path)
	case *hamba.ArraySchema:
		return c.array(w, t, path)
	case *hamba.MapSchema:
		return c.mapDec(w, t, path)
	case *hamba.RecordSchema:
		return c.record(w, t, path)
	}
	return nil, mismatch(w, t, path)
}

func mismatch(w hamba.Schema, t *types.Type, path string) error {
	return fmt.Errorf("column %s: the writer's Avro type %s cannot be read as %s", path, typeName(w), t)
}

func typeName(w hamba.Schema) string {
	if p, ok := w.(*hamba.PrimitiveSchema); ok && p.Logical() != nil {
		return fmt.Sprintf("%s (%s)", p.Type(), p.Logical().Type())
	}
	return string(w.Type())
}

// union reads the branch index, then that branch. A branch the reader
// type cannot take fails only when a record uses it, as Avro's
// resolution rules say; a union of several non-null types read as a
// STRUCT (Columns' inference) fills the field named after the branch.
func (c *compiler) union(u *hamba.UnionSchema, t *types.Type, path string) (decFn, error) {
	branches := make([]decFn, len(u.Types()))
	ok := false
	multi := len(nonNull(u)) > 1 && t.Kind == types.KindStruct
	for i, b := range u.Types() {
		var fn decFn
		var err error
		if multi && b.Type() != hamba.Null {
			fn, err = c.unionMember(b, t, path)
		}
		if fn == nil {
			// Not the union's STRUCT: a branch read as the column itself.
			fn, err = c.dec(b, t, path)
		}
		if err != nil {
			branches[i] = failing(err, path)
			continue
		}
		ok = ok || b.Type() != hamba.Null
		branches[i] = fn
	}
	if !ok {
		return nil, mismatch(u, t, path)
	}
	return func(r *reader) (any, error) {
		i, err := r.long(path)
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= int64(len(branches)) {
			return nil, r.fail(path, "union branch %d out of range (the union has %d)", i, len(branches))
		}
		return branches[i](r)
	}, nil
}

func failing(err error, path string) decFn {
	return func(r *reader) (any, error) {
		return nil, r.fail(path, "%v", err)
	}
}

// unionMember decodes one branch of a multi-type union into the field of
// struct type t named after the branch.
func (c *compiler) unionMember(b hamba.Schema, t *types.Type, path string) (decFn, error) {
	i := t.Field(branchName(b))
	if i < 0 {
		return nil, fmt.Errorf("column %s: the union branch %s has no field in %s", path, branchName(b), t)
	}
	fn, err := c.dec(b, t.Fields[i].Type, join(path, t.Fields[i].Name))
	if err != nil {
		return nil, err
	}
	n := len(t.Fields)
	return func(r *reader) (any, error) {
		v, err := fn(r)
		if err != nil {
			return nil, err
		}
		vals := make([]any, n)
		vals[i] = v
		return &types.StructValue{Type: t, Values: vals}, nil
	}, nil
}

func (c *compiler) record(w *hamba.RecordSchema, t *types.Type, path string) (decFn, error) {
	if t.Kind != types.KindStruct {
		return nil, mismatch(w, t, path)
	}
	steps, err := c.steps(w, t.Fields, path, nil)
	if err != nil {
		return nil, err
	}
	n := len(t.Fields)
	return func(r *reader) (any, error) {
		vals := make([]any, n)
		if err := runSteps(r, steps, vals); err != nil {
			return nil, err
		}
		return &types.StructValue{Type: t, Values: vals}, nil
	}, nil
}

func (c *compiler) array(w *hamba.ArraySchema, t *types.Type, path string) (decFn, error) {
	if k, v, ok := mapEntry(w); ok && t.Kind == types.KindMap {
		return c.entries(w, k, v, t, path)
	}
	if t.Kind != types.KindArray {
		return nil, mismatch(w, t, path)
	}
	elem, err := c.dec(w.Items(), t.Elem, path+"[]")
	if err != nil {
		return nil, err
	}
	min := minSize(w.Items())
	return func(r *reader) (any, error) {
		out := []any{}
		for {
			n, err := r.blockCount(path, min)
			if n == 0 || err != nil {
				return out, err
			}
			out = growAny(out, n)
			for ; n > 0; n-- {
				v, err := elem(r)
				if err != nil {
					return nil, err
				}
				out = append(out, v)
			}
		}
	}, nil
}

func growAny(s []any, n int) []any {
	if cap(s)-len(s) >= n {
		return s
	}
	out := make([]any, len(s), len(s)+n)
	copy(out, s)
	return out
}

func (c *compiler) mapDec(w *hamba.MapSchema, t *types.Type, path string) (decFn, error) {
	if t.Kind != types.KindMap {
		return nil, mismatch(w, t, path)
	}
	val, err := c.dec(w.Values(), t.Elem, path+"[]")
	if err != nil {
		return nil, err
	}
	return func(r *reader) (any, error) {
		out := map[string]any{}
		for {
			n, err := r.blockCount(path, 1)
			if n == 0 || err != nil {
				return out, err
			}
			for ; n > 0; n-- {
				k, err := r.bytes(path)
				if err != nil {
					return nil, err
				}
				v, err := val(r)
				if err != nil {
					return nil, err
				}
				out[string(k)] = v
			}
		}
	}, nil
}

// entries reads Connect's array of key/value records as a MAP.
func (c *compiler) entries(w *hamba.ArraySchema, k, v hamba.Schema, t *types.Type, path string) (decFn, error) {
	key, err := c.dec(k, types.StringType, path+".key")
	if err != nil {
		return nil, err
	}
	val, err := c.dec(v, t.Elem, path+"[]")
	if err != nil {
		return nil, err
	}
	min := minSize(w.Items())
	return func(r *reader) (any, error) {
		out := map[string]any{}
		for {
			n, err := r.blockCount(path, min)
			if n == 0 || err != nil {
				return out, err
			}
			for ; n > 0; n-- {
				kv, err := key(r)
				if err != nil {
					return nil, err
				}
				if kv == nil {
					return nil, r.fail(path, "a map entry with a null key")
				}
				vv, err := val(r)
				if err != nil {
					return nil, err
				}
				out[kv.(string)] = vv
			}
		}
	}, nil
}

// minSize is the fewest bytes a value of s takes (0 for null and for
// records of such fields).
func minSize(s hamba.Schema) int {
	switch s := deref(s).(type) {
	case *hamba.NullSchema:
		return 0
	case *hamba.FixedSchema:
		return s.Size()
	case *hamba.PrimitiveSchema:
		switch s.Type() {
		case hamba.Null:
			return 0
		case hamba.Float:
			return 4
		case hamba.Double:
			return 8
		}
		return 1
	case *hamba.RecordSchema:
		n := 0
		for _, f := range s.Fields() {
			if _, rec := deref(f.Type()).(*hamba.RecordSchema); !rec {
				n += minSize(f.Type())
			}
		}
		return n
	}
	return 1
}
