package avro

import "unsafe"

// Boxing. Storing an int64 or a string in an `any` allocates a heap cell
// for it, one per value: for a record of seven fields that is most of the
// decode's cost. The decoder instead keeps a per-record arena of 8-byte
// words and one of string headers, and builds each interface value from
// the value's type word and a pointer into the arena; a record's boxed
// values then cost two allocations (an arena grows by a new chunk, never
// by moving, so a pointer handed out stays valid). The values are never
// written again, as sql/types requires of all values, and the arena stays
// alive as long as any of them does.
//
// This relies on the layout of an interface value (a type word and a
// data word pointing at the value, for every non-pointer type), which
// the Go runtime has kept since Go 1.4; TestBoxLayout checks it.

// eface is the layout of an interface{} value.
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

// typeWord is the type word of v's dynamic type.
func typeWord(v any) unsafe.Pointer { return (*eface)(unsafe.Pointer(&v)).typ }

// arenaChunk is how many values a chunk of an arena holds.
const arenaChunk = 16

// box returns an interface of the type typ (a type word of T) holding v,
// stored in r's word arena. T must be a pointer-free type of at most 8
// bytes.
func box[T any](r *reader, typ unsafe.Pointer, v T) any {
	if len(r.words) == cap(r.words) {
		r.words = make([]uint64, 0, r.chunk(&r.wordHint))
	}
	r.words = r.words[:len(r.words)+1]
	p := unsafe.Pointer(&r.words[len(r.words)-1])
	*(*T)(p) = v
	var out any
	e := (*eface)(unsafe.Pointer(&out))
	e.typ, e.data = typ, p
	return out
}

// boxString returns s as an interface of type typ (the type word of
// string), its header stored in r's string arena.
func boxString(r *reader, typ unsafe.Pointer, s string) any {
	if len(r.strs) == cap(r.strs) {
		r.strs = make([]string, 0, r.chunk(&r.strHint))
	}
	r.strs = append(r.strs, s)
	var out any
	e := (*eface)(unsafe.Pointer(&out))
	e.typ, e.data = typ, unsafe.Pointer(&r.strs[len(r.strs)-1])
	return out
}

// chunk is the size of an arena's next chunk: the decoder's estimate for
// the first (how many such values a record's top level holds), then
// arenaChunk.
func (r *reader) chunk(hint *int) int {
	n := *hint
	*hint = arenaChunk
	return max(n, 1)
}
