package functions

import (
	"encoding/binary"
	"math"
	"sort"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/types"
)

// valueHash hashes a value of any SQL type so that equal values (as
// types.ValuesEqual sees them) hash alike: FNV-1a over a canonical
// encoding (decimals reduced, map keys sorted), then mixed. It is stable
// across processes, as hashes are kept in state stores.
func valueHash(v any) int64 {
	h := newFNV64a()
	writeValue(&h, v)
	return int64(mix64(uint64(h)))
}

// fnv64a is FNV-1a, 64 bits, as hash/fnv's New64a computes it, as a value
// of its own rather than a hash.Hash64 behind an interface: the hasher
// and the bytes written to it stay on the stack (hash/fnv's made five
// allocations per COUNT_DISTINCT update).
type fnv64a uint64

const (
	fnv64Offset = 14695981039346656037
	fnv64Prime  = 1099511628211
)

func newFNV64a() fnv64a { return fnv64Offset }

func (h *fnv64a) write(b []byte) {
	x := *h
	for _, c := range b {
		x ^= fnv64a(c)
		x *= fnv64Prime
	}
	*h = x
}

func (h *fnv64a) writeString(s string) {
	x := *h
	for i := 0; i < len(s); i++ {
		x ^= fnv64a(s[i])
		x *= fnv64Prime
	}
	*h = x
}

func (h *fnv64a) writeByte(c byte) {
	*h = (*h ^ fnv64a(c)) * fnv64Prime
}

// mix64 is MurmurHash3's 64-bit finalizer: it spreads FNV's weak high
// bits, which HyperLogLog uses to pick registers.
func mix64(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

func writeValue(h *fnv64a, v any) {
	var buf [9]byte
	num := func(tag byte, n uint64) {
		buf[0] = tag
		binary.BigEndian.PutUint64(buf[1:], n)
		h.write(buf[:])
	}
	switch x := v.(type) {
	case nil:
		h.writeByte(0)
	case bool:
		num(1, boolBit(x))
	case int32:
		num(2, uint64(x))
	case int64:
		num(2, uint64(x))
	case float64:
		num(3, math.Float64bits(x))
	case *apd.Decimal:
		writeDecimal(h, x)
	case string:
		writeHeader(h, 5, len(x))
		h.writeString(x)
	case []byte:
		writeBytes(h, 6, x)
	case types.Timestamp:
		num(7, uint64(x))
	case types.Date:
		num(8, uint64(x))
	case types.Time:
		num(9, uint64(x))
	default:
		writeContainer(h, v)
	}
}

func boolBit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func writeDecimal(h *fnv64a, d *apd.Decimal) {
	var r apd.Decimal
	r.Reduce(d)
	s := r.String()
	writeHeader(h, 4, len(s))
	h.writeString(s)
}

func writeBytes(h *fnv64a, tag byte, b []byte) {
	writeHeader(h, tag, len(b))
	h.write(b)
}

// writeHeader writes a tag and a length, as writeBytes does before the bytes.
func writeHeader(h *fnv64a, tag byte, n int) {
	var buf [9]byte
	buf[0] = tag
	binary.BigEndian.PutUint64(buf[1:], uint64(n))
	h.write(buf[:])
}

func writeContainer(h *fnv64a, v any) {
	switch x := v.(type) {
	case []any:
		writeBytes(h, 10, nil)
		for _, e := range x {
			writeValue(h, e)
		}
		h.writeByte(0xff)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		writeBytes(h, 11, nil)
		for _, k := range keys {
			writeHeader(h, 5, len(k))
			h.writeString(k)
			writeValue(h, x[k])
		}
		h.writeByte(0xff)
	case *types.StructValue:
		writeBytes(h, 12, nil)
		if x != nil {
			for _, e := range x.Values {
				writeValue(h, e)
			}
		}
		h.writeByte(0xff)
	}
}
