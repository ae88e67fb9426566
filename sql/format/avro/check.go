package avro

import (
	hamba "github.com/hamba/avro/v2"
	"github.com/sqlstream/sqlstream/sql/types"
)

// column compiles the decoder of a column: dec when the query reads it,
// else a decoder that checks the value (check) and returns NULL.
func (c *compiler) column(w hamba.Schema, t *types.Type, path string, read bool) (decFn, error) {
	if read {
		return c.dec(w, t, path)
	}
	chk, err := c.check(w, t, path)
	if err != nil {
		return nil, err
	}
	return func(r *reader) (any, error) { return nil, chk(r) }, nil
}

// check compiles a reader past one value of writer type w read as t for
// a column the query does not read: it fails where dec's decoder would
// (the same compile errors, and at run time the same reads and checks:
// truncation, an int past 32 bits, a union branch the column cannot take)
// but materializes nothing. Types whose decode has checks of its own
// beyond the bytes (decimals, enums, records, arrays, maps, multi-type
// unions read as a STRUCT) are decoded and dropped.
func (c *compiler) check(w hamba.Schema, t *types.Type, path string) (skipFn, error) {
	dec, err := c.dec(w, t, path)
	if err != nil {
		return nil, err
	}
	switch w := deref(w).(type) {
	case *hamba.NullSchema:
		return func(*reader) error { return nil }, nil
	case *hamba.PrimitiveSchema:
		if fn := checkPrimitive(w, path); fn != nil {
			return fn, nil
		}
	case *hamba.UnionSchema:
		if len(nonNull(w)) == 1 || t.Kind != types.KindStruct {
			return c.checkUnion(w, t, path), nil
		}
	}
	return func(r *reader) error { _, err := dec(r); return err }, nil
}

// checkPrimitive is the check of a primitive whose decode reads nothing
// but its bytes, or nil.
func checkPrimitive(w *hamba.PrimitiveSchema, path string) skipFn {
	if _, ok := w.Logical().(*hamba.DecimalLogicalSchema); ok {
		return nil
	}
	switch w.Type() {
	case hamba.Int:
		return func(r *reader) error { _, err := r.int(path); return err }
	case hamba.Float:
		return func(r *reader) error { _, err := r.float(path); return err }
	case hamba.Double:
		return func(r *reader) error { _, err := r.double(path); return err }
	}
	return skipPrimitive(w.Type(), path)
}

// checkUnion is union's decoder as a check: a branch the column cannot
// take fails with union's error.
func (c *compiler) checkUnion(u *hamba.UnionSchema, t *types.Type, path string) skipFn {
	branches := make([]skipFn, len(u.Types()))
	for i, b := range u.Types() {
		fn, err := c.check(b, t, path)
		if err != nil {
			fn = failingCheck(err, path)
		}
		branches[i] = fn
	}
	return func(r *reader) error {
		i, err := r.long(path)
		if err != nil {
			return err
		}
		if i < 0 || i >= int64(len(branches)) {
			return r.fail(path, "union branch %d out of range (the union has %d)", i, len(branches))
		}
		return branches[i](r)
	}
}

func failingCheck(err error, path string) skipFn {
	return func(r *reader) error { return r.fail(path, "%v", err) }
}
