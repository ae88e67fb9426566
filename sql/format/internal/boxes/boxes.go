// Package boxes builds the interface values of decoded columns without an
// allocation each. Storing an int64 or a string in an `any` allocates a
// heap cell for it, one per value: for a record of seven fields that is
// most of a decode's cost. A decoder instead keeps a per-record Arena of
// 8-byte words and one of string headers, and builds each interface value
// from the value's type word and a pointer into the arena; a narrow
// record's boxed values then cost one allocation (a frame holding the
// first chunk of each kind), a wide one's a few (an arena grows by a new
// chunk, never by moving, so a pointer handed out stays valid), and
// integers in [0, 256) none (Int: the Go runtime's static boxes). The
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
	// framed: the first chunks of both kinds come in one frame, made
	// when the first value is boxed.
	framed bool
}

// frameWords and frameStrs are what a frame holds: a narrow record's
// (a page view's, a Nexmark bid's) boxes need one allocation, not one
// per kind.
const frameWords, frameStrs = 4, 4

// frame is the first chunks of both kinds of a record that boxes both.
type frame struct {
	words [frameWords]uint64
	strs  [frameStrs]string
}

// New returns an arena whose first chunks hold words 8-byte values and
// strs strings (the record's top-level columns of each kind); a record
// of both kinds and few of each gets both chunks in one allocation.
func New(words, strs int) Arena {
	return Arena{wordHint: words, strHint: strs,
		framed: words > 0 && strs > 0 && words <= frameWords && strs <= frameStrs}
}

// unframe makes the frame of a framed arena, its first chunks; false if
// the arena is not framed (any more).
func (a *Arena) unframe() bool {
	if !a.framed {
		return false
	}
	f := new(frame)
	a.words, a.strs, a.framed = f.words[:0], f.strs[:0], false
	a.wordHint, a.strHint = chunkSize, chunkSize
	return true
}

// Word returns an interface of the type typ (a type word of T) holding v,
// stored in a's word arena. T must be a pointer-free type of at most 8
// bytes.
func Word[T any](a *Arena, typ unsafe.Pointer, v T) any {
	if len(a.words) == cap(a.words) && !a.unframe() {
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

// Int is Word for an integer: one in [0, 256) boxes as the Go runtime
// boxes it, from its static table, without an allocation or a place in
// the arena (counts, flags and small codes, an aggregate's COUNT among
// them, mostly are).
func Int[T int32 | int64](a *Arena, typ unsafe.Pointer, v T) any {
	if v >= 0 && v < 256 {
		return v
	}
	return Word(a, typ, v)
}

// String returns s as an interface of type typ (the type word of string),
// its header stored in a's string arena.
func String(a *Arena, typ unsafe.Pointer, s string) any {
	if len(a.strs) == cap(a.strs) && !a.unframe() {
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
