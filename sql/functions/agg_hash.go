package functions

import (
	"encoding/binary"
	"hash"
	"hash/fnv"
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
	h := fnv.New64a()
	writeValue(h, v)
	return int64(mix64(h.Sum64()))
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

func writeValue(h hash.Hash64, v any) {
	var buf [9]byte
	num := func(tag byte, n uint64) {
		buf[0] = tag
		binary.BigEndian.PutUint64(buf[1:], n)
		h.Write(buf[:])
	}
	switch x := v.(type) {
	case nil:
		h.Write([]byte{0})
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
		writeBytes(h, 5, []byte(x))
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

func writeDecimal(h hash.Hash64, d *apd.Decimal) {
	var r apd.Decimal
	r.Reduce(d)
	writeBytes(h, 4, []byte(r.String()))
}

func writeBytes(h hash.Hash64, tag byte, b []byte) {
	var buf [9]byte
	buf[0] = tag
	binary.BigEndian.PutUint64(buf[1:], uint64(len(b)))
	h.Write(buf[:])
	h.Write(b)
}

func writeContainer(h hash.Hash64, v any) {
	switch x := v.(type) {
	case []any:
		writeBytes(h, 10, nil)
		for _, e := range x {
			writeValue(h, e)
		}
		h.Write([]byte{0xff})
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		writeBytes(h, 11, nil)
		for _, k := range keys {
			writeBytes(h, 5, []byte(k))
			writeValue(h, x[k])
		}
		h.Write([]byte{0xff})
	case *types.StructValue:
		writeBytes(h, 12, nil)
		if x != nil {
			for _, e := range x.Values {
				writeValue(h, e)
			}
		}
		h.Write([]byte{0xff})
	}
}
