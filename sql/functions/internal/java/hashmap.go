package java

import (
	"cmp"
	"maps"
	"slices"
	"unicode/utf16"

	"github.com/sqlstream/sqlstream/sql/types"
)

// HashMapOrder lists m's keys in the iteration order of a java.util.HashMap
// created for len(m) entries, which is the order ksqlDB's map functions see
// (ksqlDB's deserializers build maps with new HashMap<>(size)): by hash
// bucket, keys sharing a bucket in string order. Java keeps such keys in
// insertion (document) order, which Go maps do not record; the orders
// agree when the keys arrived sorted.
func HashMapOrder[V any](m map[string]V) []string {
	capacity := javaTableSize(len(m))
	bucket := func(k string) uint32 {
		h := javaStringHash(k)
		return (h ^ h>>16) & uint32(capacity-1)
	}
	keys := slices.SortedFunc(maps.Keys(m), types.CompareStrings)
	slices.SortStableFunc(keys, func(a, b string) int { return cmp.Compare(bucket(a), bucket(b)) })
	return keys
}

// javaTableSize is the table size of new HashMap<>(n) after n insertions:
// the next power of two, doubled while the load factor 0.75 is exceeded.
func javaTableSize(n int) int {
	c := 1
	for c < n {
		c <<= 1
	}
	for float64(n) > 0.75*float64(c) {
		c <<= 1
	}
	return c
}

// javaStringHash is String.hashCode over UTF-16 code units.
func javaStringHash(s string) uint32 {
	var h uint32
	for _, r := range s {
		if r >= 0x10000 {
			r1, r2 := utf16.EncodeRune(r)
			h = 31*(31*h+uint32(r1)) + uint32(r2)
			continue
		}
		h = 31*h + uint32(r)
	}
	return h
}
