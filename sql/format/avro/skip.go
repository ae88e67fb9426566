package avro

import (
	hamba "github.com/hamba/avro/v2"
)

// skip compiles a reader past one value of writer type w.
func (c *compiler) skip(w hamba.Schema, path string) (skipFn, error) {
	switch w := deref(w).(type) {
	case *hamba.NullSchema:
		return func(*reader) error { return nil }, nil
	case *hamba.PrimitiveSchema:
		return skipPrimitive(w.Type(), path), nil
	case *hamba.FixedSchema:
		n := w.Size()
		return func(r *reader) error { _, err := r.fixed(path, n); return err }, nil
	case *hamba.EnumSchema:
		return func(r *reader) error { _, err := r.long(path); return err }, nil
	case *hamba.UnionSchema:
		return c.skipUnion(w, path)
	case *hamba.ArraySchema:
		return c.skipBlocks(w.Items(), false, path)
	case *hamba.MapSchema:
		return c.skipBlocks(w.Values(), true, path)
	case *hamba.RecordSchema:
		return c.skipRecord(w, path)
	}
	return func(r *reader) error { return r.fail(path, "cannot skip a %s", w.Type()) }, nil
}

func skipPrimitive(t hamba.Type, path string) skipFn {
	switch t {
	case hamba.Null:
		return func(*reader) error { return nil }
	case hamba.Boolean:
		return func(r *reader) error { _, err := r.boolean(path); return err }
	case hamba.Float:
		return func(r *reader) error { _, err := r.fixed(path, 4); return err }
	case hamba.Double:
		return func(r *reader) error { _, err := r.fixed(path, 8); return err }
	case hamba.String, hamba.Bytes:
		return func(r *reader) error { _, err := r.bytes(path); return err }
	}
	return func(r *reader) error { _, err := r.long(path); return err }
}

func (c *compiler) skipUnion(u *hamba.UnionSchema, path string) (skipFn, error) {
	branches := make([]skipFn, len(u.Types()))
	for i, b := range u.Types() {
		fn, err := c.skip(b, path)
		if err != nil {
			return nil, err
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
	}, nil
}

// skipBlocks skips an array (or, with keys, a map). A block that carries
// its byte size is skipped whole.
func (c *compiler) skipBlocks(items hamba.Schema, keys bool, path string) (skipFn, error) {
	item, err := c.skip(items, path+"[]")
	if err != nil {
		return nil, err
	}
	min := minSize(items)
	if keys {
		min++
	}
	return func(r *reader) error {
		for {
			n, err := r.blockCount(path, min)
			if n == 0 || err != nil {
				return err
			}
			for ; n > 0; n-- {
				if keys {
					if _, err := r.bytes(path); err != nil {
						return err
					}
				}
				if err := item(r); err != nil {
					return err
				}
			}
		}
	}, nil
}

func (c *compiler) skipRecord(w *hamba.RecordSchema, path string) (skipFn, error) {
	if err := c.push(w, path); err != nil {
		return nil, err
	}
	defer c.pop()
	fields := make([]skipFn, len(w.Fields()))
	for i, f := range w.Fields() {
		fn, err := c.skip(f.Type(), join(path, f.Name()))
		if err != nil {
			return nil, err
		}
		fields[i] = fn
	}
	return func(r *reader) error {
		for _, fn := range fields {
			if err := fn(r); err != nil {
				return err
			}
		}
		return nil
	}, nil
}
