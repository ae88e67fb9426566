package java

import "math"

// HotSpot computes Math.sin and Math.cos with intrinsics that are almost
// always correctly rounded, unlike both Go's math package and fdlibm.
// Sin and Cos get the correctly rounded result for |x| <= 1e4
// (GEO_DISTANCE needs |x| <= π) by evaluating in double-double arithmetic
// (about 106 bits); larger arguments use the fdlibm ports. Math.asin has
// no intrinsic: it is StrictMath's fdlibm, which StrictAsin ports.

// ddNum is an unevaluated sum hi + lo with |lo| <= ulp(hi)/2.
type ddNum struct{ hi, lo float64 }

func quickTwoSum(a, b float64) ddNum {
	s := a + b
	return ddNum{s, b - (s - a)}
}

func twoSum(a, b float64) ddNum {
	s := a + b
	bb := s - a
	return ddNum{s, (a - (s - bb)) + (b - bb)}
}

func (x ddNum) add(y ddNum) ddNum {
	s := twoSum(x.hi, y.hi)
	return quickTwoSum(s.hi, s.lo+x.lo+y.lo)
}

func (x ddNum) mul(y ddNum) ddNum {
	p := x.hi * y.hi
	e := math.FMA(x.hi, y.hi, -p) + (x.hi*y.lo + x.lo*y.hi)
	return quickTwoSum(p, e)
}

// divInt divides by a small integer.
func (x ddNum) divInt(n float64) ddNum {
	q := x.hi / n
	r := math.FMA(-q, n, x.hi) + x.lo
	return quickTwoSum(q, r/n)
}

func (x ddNum) neg() ddNum { return ddNum{-x.hi, -x.lo} }

// π/2 as the sum of three doubles.
const (
	halfPi1 = 1.5707963267948966
	halfPi2 = 6.123233995736766e-17
	halfPi3 = -1.4973849048591698e-33
)

// maxDDArg bounds the arguments reduced in double-double.
const maxDDArg = 1e4

// reduceHalfPi returns n and x - n·π/2 in [-π/4, π/4] for |x| <= maxDDArg.
func reduceHalfPi(x float64) (int, ddNum) {
	n := math.Round(x / halfPi1)
	p1 := n * halfPi1
	r := twoSum(x, -p1)
	r = r.add(ddNum{-math.FMA(n, halfPi1, -p1), 0})
	p2 := n * halfPi2
	r = r.add(ddNum{-p2, -math.FMA(n, halfPi2, -p2)})
	return int(n), r.add(ddNum{-n * halfPi3, 0})
}

// sinCosDD evaluates the Taylor series of sin or cos at r (|r| <= π/4).
func sinCosDD(r ddNum, cos bool) ddNum {
	r2 := r.mul(r)
	term, k := r, 1.0
	if cos {
		term, k = ddNum{1, 0}, 0
	}
	sum := term
	for i := 0; i < 14; i++ {
		term = term.mul(r2).divInt((k + 1) * (k + 2)).neg()
		sum = sum.add(term)
		k += 2
	}
	return sum
}

// Sin is Math.sin as HotSpot computes it.
func Sin(x float64) float64 {
	if x == 0 {
		return x
	}
	if math.Abs(x) > maxDDArg || math.IsNaN(x) {
		return StrictSin(x)
	}
	n, r := reduceHalfPi(x)
	switch n & 3 {
	case 0:
		return sinCosDD(r, false).hi
	case 1:
		return sinCosDD(r, true).hi
	case 2:
		return -sinCosDD(r, false).hi
	}
	return -sinCosDD(r, true).hi
}

// Cos is Math.cos as HotSpot computes it.
func Cos(x float64) float64 {
	if math.Abs(x) > maxDDArg || math.IsNaN(x) {
		return StrictCos(x)
	}
	n, r := reduceHalfPi(x)
	switch n & 3 {
	case 0:
		return sinCosDD(r, true).hi
	case 1:
		return -sinCosDD(r, false).hi
	case 2:
		return -sinCosDD(r, true).hi
	}
	return sinCosDD(r, false).hi
}
