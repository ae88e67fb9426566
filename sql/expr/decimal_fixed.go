package expr

import (
	"cmp"
	"math"
	"math/bits"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/types"
)

// fixedArith computes a + b, a - b or a * b for a DECIMAL result of type t
// in int64 arithmetic, when both operands are integers or finite decimals
// whose coefficients fit an int64 and the exact result, rounded half up to
// t's scale, fits an int64 and t's precision. Otherwise ok is false and
// decimalOp decides, its errors included. decimalOp computes the exact
// result too (at precision 200, more than + - * of int64 coefficients
// need) and rounds it once, half up, to t's scale: the values are the
// same, and so is their form (coefficient, sign, exponent -scale, zero
// never negative).
func fixedArith(op ast.BinaryOp, t *types.Type, a, b any) (*apd.Decimal, bool) {
	ca, ea, ok := fixedOf(a)
	if !ok {
		return nil, false
	}
	cb, eb, ok := fixedOf(b)
	if !ok {
		return nil, false
	}
	c, e, ok := fixedExact(op, ca, ea, cb, eb)
	if !ok {
		return nil, false
	}
	if c, ok = rescaleHalfUp(c, e-int64(-t.Scale)); !ok || !fitsPrecision(c, t.Precision) {
		return nil, false
	}
	return new(apd.Decimal).SetFinite(c, int32(-t.Scale)), true
}

// fixedCompare orders two integer or DECIMAL operands by the sign of
// their exact difference in int64 (q14's 0.908 * price > 1000000 a row),
// as apd's Cmp would; ok false when an operand or the difference does
// not fit, and Cmp answers.
func fixedCompare(a, b any) (int, bool) {
	ca, ea, ok := fixedOf(a)
	if !ok {
		return 0, false
	}
	cb, eb, ok := fixedOf(b)
	if !ok {
		return 0, false
	}
	c, _, ok := fixedExact(ast.OpSub, ca, ea, cb, eb)
	if !ok {
		return 0, false
	}
	return cmp.Compare(c, 0), true
}

// fixedOf is a numeric operand as coefficient × 10^exponent; ok false
// for a decimal that is not finite or whose coefficient passes an int64.
func fixedOf(v any) (int64, int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, 0, true
	case int32:
		return int64(x), 0, true
	case *apd.Decimal:
		if x == nil || x.Form != apd.Finite || !x.Coeff.IsUint64() {
			return 0, 0, false
		}
		u := x.Coeff.Uint64()
		if u > math.MaxInt64 {
			return 0, 0, false
		}
		if x.Negative {
			return -int64(u), int64(x.Exponent), true
		}
		return int64(u), int64(x.Exponent), true
	}
	return 0, 0, false
}

// fixedExact is ca×10^ea op cb×10^eb exactly, as c × 10^e; ok false when
// c would pass an int64.
func fixedExact(op ast.BinaryOp, ca, ea, cb, eb int64) (c, e int64, ok bool) {
	switch op {
	case ast.OpMul:
		c, ok = mulInt64(ca, cb)
		return c, ea + eb, ok
	case ast.OpSub:
		if cb == math.MinInt64 {
			return 0, 0, false
		}
		cb = -cb
	case ast.OpAdd:
	default:
		return 0, 0, false
	}
	if ea < eb {
		ca, ea, cb, eb = cb, eb, ca, ea
	}
	// ea ≥ eb: bring a to b's exponent.
	if ca, ok = scaleUp(ca, ea-eb); !ok {
		return 0, 0, false
	}
	c = ca + cb
	if (ca >= 0) == (cb >= 0) && (c >= 0) != (ca >= 0) {
		return 0, 0, false
	}
	return c, eb, true
}

// maxPow10 is the largest k for which a uint64 holds 10^k.
const maxPow10 = 19

// pow10 is 10^k for 0 ≤ k ≤ maxPow10.
func pow10(k int64) uint64 {
	p := uint64(1)
	for ; k > 0; k-- {
		p *= 10
	}
	return p
}

// mulInt64 is a × b; ok false when it passes an int64.
func mulInt64(a, b int64) (int64, bool) {
	hi, lo := bits.Mul64(absU(a), absU(b))
	neg := (a < 0) != (b < 0)
	return signed(hi, lo, neg)
}

// signed is the 128-bit magnitude hi:lo with a sign as an int64.
func signed(hi, lo uint64, neg bool) (int64, bool) {
	switch {
	case hi != 0 || lo > 1<<63:
		return 0, false
	case neg:
		return -int64(lo), true // -(1<<63) included
	case lo == 1<<63:
		return 0, false
	}
	return int64(lo), true
}

func absU(a int64) uint64 {
	if a < 0 {
		return -uint64(a)
	}
	return uint64(a)
}

// scaleUp is c × 10^k for k ≥ 0; ok false when it passes an int64.
func scaleUp(c int64, k int64) (int64, bool) {
	switch {
	case c == 0 || k == 0:
		return c, true
	case k > maxPow10:
		return 0, false
	}
	hi, lo := bits.Mul64(absU(c), pow10(k))
	return signed(hi, lo, c < 0)
}

// rescaleHalfUp is c × 10^k, rounded half away from zero (apd's
// RoundHalfUp, Java's HALF_UP) when k < 0.
func rescaleHalfUp(c int64, k int64) (int64, bool) {
	if k >= 0 {
		return scaleUp(c, k)
	}
	if -k > maxPow10 {
		return 0, true // |c| ≤ 2^63 < 10^20 / 2
	}
	div := pow10(-k)
	m := absU(c)
	q, r := m/div, m%div
	if r >= div-r {
		q++
	}
	if c < 0 {
		return -int64(q), true
	}
	return int64(q), true
}

// fitsPrecision reports whether c has at most p digits.
func fitsPrecision(c int64, p int) bool {
	if p > maxPow10 {
		return true
	}
	return absU(c) < pow10(int64(p))
}
