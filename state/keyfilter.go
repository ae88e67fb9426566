package state

import (
	"hash/maphash"
	"math/bits"
)

// keyFilter remembers, approximately, every key ever written to one store
// partition, so a point read of a key that was never written (every new
// key of an aggregation, every new window) is answered without a Pebble
// lookup. It is a scalable Bloom filter: a chain of stages, each twice the
// capacity of the one before, so it needs no size up front. It has false
// positives (those reads go to Pebble as before) and no false negatives,
// as long as every put of the partition passes through add. Deleted keys
// stay in it. It lives in memory only and belongs to the partition's
// owner (one goroutine at a time, under the store's lock).
//
//	add(k):          set 7 bits of k in one 512-bit block of the newest
//	                 stage (a new stage when full)
//	mayContain(k):   any stage whose block for k has all 7 bits set
type keyFilter struct {
	seed   maphash.Seed
	stages []filterStage
	keys   int64 // added, duplicates included
}

type filterStage struct {
	bits []uint64
	mask uint64 // len(bits) - 1 (a word index)
	keys int64  // added to this stage
	cap  int64  // keys this stage takes before the next one starts
}

const (
	// blockWords is a block of the filter: 8 words, 512 bits, one cache
	// line; blockMask picks a bit in it.
	blockWords = 8
	blockMask  = blockWords*64 - 1

	filterProbes     = 7
	filterBitsPerKey = 12 // rounded up to a power of two of words: 16 bits, ~0.2% false positives per full stage
	// filterFirstCap is the first stage's capacity; 12 KiB of bits.
	filterFirstCap = 8 << 10
	// filterMaxKeys bounds the memory (about 2 bytes per key): past it
	// the filter gives up and every read goes to Pebble.
	filterMaxKeys = 32 << 20
)

func newKeyFilter() *keyFilter {
	return &keyFilter{seed: maphash.MakeSeed()}
}

// add records k; false when the filter is full and must be dropped.
func (f *keyFilter) add(k []byte) bool {
	if f.keys >= filterMaxKeys {
		return false
	}
	if n := len(f.stages); n == 0 || f.stages[n-1].keys >= f.stages[n-1].cap {
		capacity := int64(filterFirstCap) << n
		words := 1 << bits.Len64(uint64(capacity*filterBitsPerKey-1)>>6) // a power of two
		f.stages = append(f.stages, filterStage{bits: make([]uint64, words), mask: uint64(words) - 1, cap: capacity})
	}
	s := &f.stages[len(f.stages)-1]
	h1, h2 := f.hash(k)
	block := s.block(h1)
	for i := range uint64(filterProbes) {
		b := (h2 + i*(h2>>16|1)) & blockMask
		block[b>>6] |= 1 << (b & 63)
	}
	s.keys++
	f.keys++
	return true
}

// mayContain is false only for a key never added.
func (f *keyFilter) mayContain(k []byte) bool {
	h1, h2 := f.hash(k)
	for i := range f.stages {
		if f.stages[i].has(h1, h2) {
			return true
		}
	}
	return false
}

func (s *filterStage) has(h1, h2 uint64) bool {
	block := s.block(h1)
	for i := range uint64(filterProbes) {
		b := (h2 + i*(h2>>16|1)) & blockMask
		if block[b>>6]&(1<<(b&63)) == 0 {
			return false
		}
	}
	return true
}

// block is the 512-bit block (one cache line) that holds all the bits of
// a key whose first hash is h1: a lookup costs one cache miss per stage.
func (s *filterStage) block(h1 uint64) []uint64 {
	i := (h1 & s.mask) &^ (blockWords - 1)
	return s.bits[i : i+blockWords : i+blockWords]
}

// hash returns the hash that picks a key's block and the one that picks
// its bits in the block.
func (f *keyFilter) hash(k []byte) (h1, h2 uint64) {
	h := maphash.Bytes(f.seed, k)
	return h, h >> 32 // the block comes from the low bits, the bits in it from the high ones
}
