package nexmark

import (
	"math"
	"math/bits"
)

// rng is SplitMix64, the algorithm of Java's SplittableRandom: a 64-bit
// counter advanced by the golden gamma and mixed by two multiply-xorshift
// rounds. Each event draws from its own rng seeded from (seed, event
// number), so any event can be generated alone and the same seed always
// gives the same events.
type rng struct{ state uint64 }

const goldenGamma = 0x9e3779b97f4a7c15

func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// newRNG seeds the stream of one event (or of one channel's URL).
func newRNG(seed, stream uint64) rng {
	return rng{state: mix64(seed^goldenGamma) ^ mix64(stream+goldenGamma)}
}

func (r *rng) next() uint64 {
	r.state += goldenGamma
	return mix64(r.state)
}

// intn is uniform in [0, n) for n > 0 (Lemire's multiply-shift; the bias
// is below 2^-32 for the bounds used here).
func (r *rng) intn(n int64) int64 {
	if n <= 0 {
		return 0
	}
	hi, _ := bits.Mul64(r.next(), uint64(n))
	return int64(hi)
}

// float is uniform in [0, 1) with 53 random bits.
func (r *rng) float() float64 {
	return float64(r.next()>>11) * (1.0 / (1 << 53))
}

// price is log-uniform in cents: round(10^(U·6) · 100), 100 … 100,000,000.
func (r *rng) price() int64 {
	return int64(math.Round(math.Pow(10, r.float()*6) * 100))
}
