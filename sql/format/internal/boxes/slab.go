package boxes

import "unsafe"

// Slab holds the bytes of the strings a decoder one task owns hands out,
// record after record (a KAFKA key's, a JSON, Avro or protobuf value's):
// one allocation per SlabSize bytes of strings, not one per record. It
// is only appended to, never written again where a string was handed
// out, as sql/types requires of values; a full slab is left to the
// strings in it, which keep it alive. A string a store or a cache keeps
// keeps its slab alive, so the slab is small, and a string longer than
// SlabLongest is its own allocation. The zero Slab works.
type Slab struct{ b []byte }

// SlabSize is a slab's size; SlabLongest the longest string put in one.
const SlabSize, SlabLongest = 512, 128

// String returns data as a string whose bytes are in the slab.
func (s *Slab) String(data []byte) string {
	switch n := len(data); {
	case n == 0:
		return ""
	case n > SlabLongest:
		return string(data)
	default:
		if cap(s.b)-len(s.b) < n {
			s.b = make([]byte, 0, SlabSize)
		}
		start := len(s.b)
		s.b = append(s.b, data...)
		return unsafe.String(&s.b[start], n)
	}
}
