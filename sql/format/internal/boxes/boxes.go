// Package boxes builds the interface values of decoded columns without an
// allocation each. Storing an int64 or a string in an `any` allocates a
// heap cell for it, one per value: for a record of seven fields that is
// most of a decode's cost. A decoder instead keeps a per-record Arena of
// 8-byte words and one of string headers, and builds each interface value
// from the value's type word and a pointer into the arena; a record's
// boxed values then cost about two allocations (an arena grows by a new
// chunk, never by moving, so a pointer handed out stays valid). The
// values are never written again, as sql/types requires of all values,
// and a chunk stays alive as long as any of its values does.
//
// This relies on the layout of an interface value (a type word and a
// data word pointing at the value, for every non-pointer type), which the
// Go runtime has kept since Go 1.4; TestLayout checks it. The Avro and
// JSON decoders share it; it imports nothing of sqlstream's.
package boxes

import "unsafe"

// eface is the layout of an interface{} value.
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

// TypeWord is the type word of v's dynamic type, taken once per codec.
func TypeWord(v any) unsafe.Pointer { return (*eface)(unsafe.Pointer(&v)).typ }

// chunkSize is how many values a chunk of an arena holds after the first.
const chunkSize = 16

// Arena holds the boxed values of one record. The zero Arena works; New
// sizes its first chunks for a record's top-level columns. An Arena
// belongs to one decode at a time.
type Arena struct {
	words             []uint64
	strs              []string
	wordHint, strHint int
}

// New returns an arena whose first chunks hold words 8-byte values and
// strs strings (the record's top-level columns of each kind).
func New(words, strs int) Arena { return Arena{wordHint: words, strHint: strs} }

// Within returns an arena whose first chunks are the empty slices words
// and strs, whose backing arrays the caller allocated with something it
// allocates anyway (the decoder's reader), so the first values of a
// record cost no allocation of their own; wantWords and wantStrs (the
// record's top-level columns of each kind) size the next chunks when those
// are too small.
func Within(words []uint64, strs []string, wantWords, wantStrs int) Arena {
	return Arena{words: words[:0], strs: strs[:0],
		wordHint: rest(wantWords, cap(words)), strHint: rest(wantStrs, cap(strs))}
}

// rest is the size of the chunk after a first one of capacity have, for a
// record that wants want values: what is left of want, else chunkSize.
func rest(want, have int) int {
	if want > have {
		return want - have
	}
	return chunkSize
}

// Word returns an interface of the type typ (a type word of T) holding v,
// stored in a's word arena. T must be a pointer-free type of at most 8
// bytes.
func Word[T any](a *Arena, typ unsafe.Pointer, v T) any {
	if len(a.words) == cap(a.words) {
		a.words = make([]uint64, 0, chunk(&a.wordHint))
	}
	a.words = a.words[:len(a.words)+1]
	p := unsafe.Pointer(&a.words[len(a.words)-1])
	*(*T)(p) = v
	var out any
	e := (*eface)(unsafe.Pointer(&out))
	e.typ, e.data = typ, p
	return out
}

// String returns s as an interface of type typ (the type word of string),
// its header stored in a's string arena.
func String(a *Arena, typ unsafe.Pointer, s string) any {
	if len(a.strs) == cap(a.strs) {
		a.strs = make([]string, 0, chunk(&a.strHint))
	}
	a.strs = append(a.strs, s)
	var out any
	e := (*eface)(unsafe.Pointer(&out))
	e.typ, e.data = typ, unsafe.Pointer(&a.strs[len(a.strs)-1])
	return out
}

// chunk is the size of an arena's next chunk: the hint for the first,
// then chunkSize.
func chunk(hint *int) int {
	n := *hint
	*hint = chunkSize
	return max(n, 1)
}
