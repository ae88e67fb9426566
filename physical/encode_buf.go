package physical

// sizeHint sizes the buffer of the next record an operator encodes for
// the emitter (which keeps it, so it cannot be reused): the last one's
// length and a quarter, so a record of a similar size is allocated once
// instead of grown by append from empty (three to five allocations for
// a ~100-byte JSON value). One operator's hint is used by its task's
// goroutine only.
type sizeHint struct{ last int }

// buf returns an empty buffer with room for a record like the last.
func (h *sizeHint) buf() []byte {
	if h.last == 0 {
		return nil
	}
	return make([]byte, 0, h.last+h.last/4+8)
}

// note remembers the size of the record just encoded.
func (h *sizeHint) note(b []byte) { h.last = len(b) }

// encodeBufs hands an operator the buffers it encodes a record's key and
// value into for the emitter: new ones per record when the emitter keeps
// them (Emitter's contract), or the operator's own two, reused, when it
// copies them (BytesCopier), which saves the allocation of each output
// record's bytes. One operator's buffers are used by its task's goroutine
// only.
type encodeBufs struct {
	reuse      bool
	key, value []byte
}

func newEncodeBufs(e Emitter) encodeBufs { return encodeBufs{reuse: copiesBytes(e)} }

// forKey returns an empty buffer of capacity n for a record's key (and
// the value after it, when n leaves room).
func (b *encodeBufs) forKey(n int) []byte { return b.get(&b.key, n) }

// forValue returns an empty buffer for a record's value, sized by h as
// sizeHint.buf sizes it (nil when h knows no size yet).
func (b *encodeBufs) forValue(h sizeHint) []byte {
	if h.last == 0 {
		return nil
	}
	return b.get(&b.value, h.last+h.last/4+8)
}

func (b *encodeBufs) get(own *[]byte, n int) []byte {
	if !b.reuse {
		return make([]byte, 0, n)
	}
	if cap(*own) < n {
		*own = make([]byte, 0, n)
	}
	return (*own)[:0]
}
