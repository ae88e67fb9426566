package state

import (
	"encoding/binary"
	"testing"
)

// benchPuts is the number of puts per benchmark op.
const benchPuts = 100_000

// BenchmarkPutFlush writes 100k puts and flushes, through the default
// 1 MiB cache: over 100k distinct keys the cache mostly evicts, over 10
// hot keys it absorbs all but 10 writes (see records/op).
func BenchmarkPutFlush(b *testing.B) {
	for _, bc := range []struct {
		name string
		keys int
	}{{"distinct-100k", benchPuts}, {"hot-10", 10}} {
		b.Run(bc.name, func(b *testing.B) {
			var log countingLog
			st, err := memDB(b).Store(testID, WithChangelog(&log))
			must(b, err)
			value := make([]byte, 32)
			b.ResetTimer()
			for range b.N {
				putAll(b, st, bc.keys, value)
				must(b, st.Flush())
			}
			b.ReportMetric(float64(log.n)/float64(b.N), "records/op")
		})
	}
}

func putAll(b *testing.B, st Store, keys int, value []byte) {
	key := make([]byte, 8)
	for i := range benchPuts {
		binary.BigEndian.PutUint64(key, uint64(i%keys))
		binary.BigEndian.PutUint64(value, uint64(i))
		must(b, st.Put(key, value))
	}
}

// BenchmarkRange iterates 100k committed keys with a few cached ones.
func BenchmarkRange(b *testing.B) {
	st, err := memDB(b).Store(testID)
	must(b, err)
	putAll(b, st, benchPuts, make([]byte, 32))
	must(b, st.Flush())
	must(b, st.Put([]byte("cached"), []byte("x")))
	b.ResetTimer()
	for range b.N {
		n := 0
		must(b, st.Range(nil, nil, func(k, v []byte) bool { n++; return true }))
		if n != benchPuts+1 {
			b.Fatalf("ranged over %d keys", n)
		}
	}
}
