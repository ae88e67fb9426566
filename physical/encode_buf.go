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
