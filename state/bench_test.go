package state

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"syscall"
	"testing"
)

// benchPuts is the number of puts per benchmark op.
const benchPuts = 100_000

// BenchmarkPutFlush writes 100k puts and flushes, through the default
// 1 MiB cache: over 100k distinct keys the cache mostly evicts, over 10
// hot keys it absorbs all but 10 writes (see records/op). random-100k
// writes the distinct keys in a random order, as new windows or GROUP BY
// keys come, so the batch a commit applies is out of key order
// (batchSorter).
func BenchmarkPutFlush(b *testing.B) {
	for _, bc := range []struct {
		name   string
		keys   int
		random bool
	}{{"distinct-100k", benchPuts, false}, {"random-100k", benchPuts, true}, {"hot-10", 10, false}} {
		b.Run(bc.name, func(b *testing.B) {
			var log countingLog
			st, err := memDB(b).Store(testID, WithChangelog(&log))
			must(b, err)
			value := make([]byte, 32)
			order := keyOrder(bc.random)
			b.ResetTimer()
			for range b.N {
				putAll(b, st, bc.keys, value, order)
				must(b, st.Flush())
			}
			b.ReportMetric(float64(log.n)/float64(b.N), "records/op")
		})
	}
}

// keyOrder is the order putAll writes its keys in: nil for 0, 1, 2, …;
// else a fixed random permutation of benchPuts.
func keyOrder(random bool) []int {
	if !random {
		return nil
	}
	return rand.New(rand.NewSource(1)).Perm(benchPuts)
}

func putAll(b *testing.B, st Store, keys int, value []byte, order []int) {
	key := make([]byte, 8)
	for i := range benchPuts {
		k := i
		if order != nil {
			k = order[i]
		}
		binary.BigEndian.PutUint64(key, uint64(k%keys))
		binary.BigEndian.PutUint64(value, uint64(i))
		must(b, st.Put(key, value))
	}
}

// BenchmarkRange iterates 100k committed keys with a few cached ones.
func BenchmarkRange(b *testing.B) {
	st, err := memDB(b).Store(testID)
	must(b, err)
	putAll(b, st, benchPuts, make([]byte, 32), nil)
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

// BenchmarkWindowCount is the store side of a tumbling COUNT where every
// record opens a new (key, window): a Get that misses, then a Put, with
// a flush every 10k records (a commit), on an on-disk DB. cpu-ns/op is
// the process's CPU time, so Pebble's background flushes and compactions
// count.
func BenchmarkWindowCount(b *testing.B) {
	db, err := Open(b.TempDir())
	must(b, err)
	b.Cleanup(func() { _ = db.Close() })
	var log countingLog
	w, err := db.WindowStore(testID, WithChangelog(&log))
	must(b, err)
	key := []byte("user-0000000")
	value := []byte("\x00\x00\x01\xa2(=\x05\x0b{\"STATE_0\":1}")
	start := processCPU()
	b.ResetTimer()
	for i := range b.N {
		// 100k users, one-minute windows over a spread of event times.
		u := (i * 7919) % 100_000
		copy(key[5:], fmt.Sprintf("%07d", u))
		ws := int64(i/100_000) * 60_000
		v, err := w.Get(key, ws)
		must(b, err)
		if v != nil {
			b.Fatalf("window %s@%d exists", key, ws)
		}
		must(b, w.Put(key, ws, value))
		if i%10_000 == 9_999 {
			must(b, w.Flush())
		}
	}
	must(b, w.Flush())
	b.StopTimer()
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}

// processCPU is the process's user+system CPU time in nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
