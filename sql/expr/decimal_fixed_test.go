package expr

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/types"
)

// decimalOpApd is decimalOp as it was before the int64 path: apd at
// precision 200, then rounded to t's scale.
func decimalOpApd(op ast.BinaryOp, t *types.Type, a, b any) (any, error) {
	var da, db apd.Decimal
	return decimalOp(op, t, decimalOperand(&da, a), decimalOperand(&db, b))
}

// randomOperand is an INTEGER, a BIGINT or a DECIMAL(p, s) value (the
// type returned with it): coefficients from zero through the edges of
// the precision and of an int64 and past them, exponents mostly -s, some
// with more or fewer fractional digits than the type, negative zero.
func randomOperand(r *rand.Rand) (any, *types.Type) {
	switch r.IntN(6) {
	case 0:
		return []int32{0, 1, -1, math.MaxInt32, math.MinInt32, r.Int32() >> r.IntN(31), -r.Int32N(1000)}[r.IntN(7)], types.IntegerType
	case 1:
		return []int64{0, -1, math.MaxInt64, math.MinInt64, r.Int64() >> r.IntN(63), -r.Int64N(100000)}[r.IntN(6)], types.BigintType
	}
	p := 1 + r.IntN(38)
	s := r.IntN(p + 1)
	return randomDecimalOf(r, p, s), types.DecimalOf(p, s)
}

func randomDecimalOf(r *rand.Rand, p, s int) *apd.Decimal {
	var d apd.Decimal
	switch r.IntN(8) {
	case 0: // the largest coefficient of the precision, a power of ten
		d.Coeff.Exp(apd.NewBigInt(10), apd.NewBigInt(int64(p)), nil)
		if r.IntN(2) == 0 {
			d.Coeff.Sub(&d.Coeff, apd.NewBigInt(1))
		}
	case 1: // around 2^63
		d.Coeff.SetUint64(math.MaxInt64 - 2 + uint64(r.IntN(5)))
	case 2: // a tie for rounding away a digit or two
		d.Coeff.SetInt64(r.Int64N(1e6)*100 + 50)
	case 3:
		d.Coeff.SetInt64(0)
	default:
		d.Coeff.SetInt64(r.Int64N(int64(pow10(int64(min(p, 18))))))
	}
	d.Negative = r.IntN(2) == 0
	d.Exponent = int32(-s)
	if r.IntN(6) == 0 {
		d.Exponent += int32(r.IntN(7) - 4)
	}
	if r.IntN(50) == 0 {
		d.Exponent = int32(r.IntN(100) - 50)
	}
	return &d
}

// TestFixedArithMatchesApd: the int64 path gives decimalOp's result, value
// and form, for +, - and * over a million random operand pairs; where it
// declines (coefficients or results past an int64, results past the
// precision) decimalOp answers, with its errors. Both paths are taken
// often enough to count.
func TestFixedArithMatchesApd(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ops := []ast.BinaryOp{ast.OpAdd, ast.OpSub, ast.OpMul}
	var fast, slow int
	for range 1000000 {
		a, ta := randomOperand(r)
		b, tb := randomOperand(r)
		op := ops[r.IntN(len(ops))]
		rt := arithType(op, ta, tb)
		got, ok := fixedArith(op, rt, a, b)
		if !ok {
			slow++
			continue
		}
		fast++
		want, err := decimalOpApd(op, rt, a, b)
		if err != nil {
			t.Fatalf("%v %v %v as %s: fast %s, apd fails %v", a, op, b, rt, got, err)
		}
		if !sameDecimal(got, want.(*apd.Decimal)) {
			t.Fatalf("%v %v %v as %s: fast %s, apd %s", a, op, b, rt, describeDecimal(got), describeDecimal(want.(*apd.Decimal)))
		}
	}
	t.Logf("%d fast, %d apd", fast, slow)
	if fast < 300000 || slow < 100000 {
		t.Fatalf("%d pairs took the int64 path, %d apd: the operands do not cover both", fast, slow)
	}
}

// TestFixedCompareMatchesApd: the int64 comparison orders a million
// random operand pairs (and each operand with itself, its negation and
// its value at another exponent) as apd's Cmp does; both paths are taken
// often enough to count.
func TestFixedCompareMatchesApd(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var fast, slow int
	check := func(a, b any) {
		got, ok := fixedCompare(a, b)
		if !ok {
			slow++
			return
		}
		fast++
		var da, db apd.Decimal
		if want := decimalOf(a, &da).Cmp(decimalOf(b, &db)); got != want {
			t.Fatalf("compare %v with %v: fast %d, apd %d", a, b, got, want)
		}
	}
	for range 1000000 {
		a, _ := randomOperand(r)
		b, _ := randomOperand(r)
		check(a, b)
		check(a, a)
		if d, ok := a.(*apd.Decimal); ok {
			var neg, scaled apd.Decimal
			neg.Neg(d)
			check(a, &neg)
			// the same value with one more trailing zero
			scaled.Coeff.Mul(&d.Coeff, apd.NewBigInt(10))
			scaled.Exponent, scaled.Negative, scaled.Form = d.Exponent-1, d.Negative, d.Form
			check(a, &scaled)
		}
	}
	t.Logf("%d fast, %d apd", fast, slow)
	if fast < 300000 || slow < 100000 {
		t.Fatalf("%d pairs took the int64 path, %d apd: the operands do not cover both", fast, slow)
	}
}

// TestFixedArithEdges: rounding ties either side of zero, results at the
// precision's edge and one past it (apd's overflow error), int64's edges,
// zero's sign, and operands with more fractional digits than their type.
func TestFixedArithEdges(t *testing.T) {
	dec := func(c int64, e int32) *apd.Decimal { return apd.New(c, e) }
	for _, c := range []struct {
		op   ast.BinaryOp
		a, b any
		t    *types.Type
		fast bool
	}{
		{ast.OpMul, dec(908, -3), int64(94562), types.DecimalOf(23, 3), true},
		{ast.OpMul, dec(125, -3), dec(1, 0), types.DecimalOf(5, 2), true},  // 0.125 → 0.13
		{ast.OpMul, dec(-125, -3), dec(1, 0), types.DecimalOf(5, 2), true}, // -0.125 → -0.13
		{ast.OpMul, dec(-124, -3), dec(1, 0), types.DecimalOf(5, 2), true}, // -0.124 → -0.12
		{ast.OpAdd, dec(-4, -3), dec(0, 0), types.DecimalOf(5, 2), true},   // -0.004 → 0.00, not -0.00
		{ast.OpSub, dec(5, -1), dec(5, -1), types.DecimalOf(3, 1), true},
		{ast.OpAdd, dec(9999, -2), dec(1, -2), types.DecimalOf(4, 2), false}, // 100.00 overflows DECIMAL(4,2)
		{ast.OpAdd, dec(9998, -2), dec(1, -2), types.DecimalOf(4, 2), true},
		{ast.OpMul, int64(math.MaxInt64), int64(2), types.DecimalOf(39, 0), false},
		{ast.OpSub, int64(math.MinInt64), int64(1), types.DecimalOf(20, 0), false},
		{ast.OpSub, int64(0), int64(math.MinInt64), types.DecimalOf(20, 0), false},
		{ast.OpAdd, int64(math.MinInt64), int64(0), types.DecimalOf(20, 0), true},
		{ast.OpMul, dec(1, 30), dec(0, -2), types.DecimalOf(10, 2), true},
		{ast.OpMul, dec(5, -21), int64(1), types.DecimalOf(5, 0), true},
	} {
		got, ok := fixedArith(c.op, c.t, c.a, c.b)
		want, err := decimalOpApd(c.op, c.t, c.a, c.b)
		if ok != c.fast {
			t.Errorf("%v %v %v as %s: int64 path %v, want %v (apd %v, %v)", c.a, c.op, c.b, c.t, ok, c.fast, want, err)
			continue
		}
		if !ok {
			continue
		}
		if err != nil || !sameDecimal(got, want.(*apd.Decimal)) {
			t.Errorf("%v %v %v as %s: int64 path %s, apd %v (%v)", c.a, c.op, c.b, c.t, describeDecimal(got), want, err)
		}
	}
}

// sameDecimal compares the form (sign, exponent, coefficient) as well as
// the value.
func sameDecimal(a, b *apd.Decimal) bool {
	return a.Form == b.Form && a.Negative == b.Negative && a.Exponent == b.Exponent && a.Coeff.Cmp(&b.Coeff) == 0
}

func describeDecimal(d *apd.Decimal) string {
	sign := ""
	if d.Negative {
		sign = "-"
	}
	return d.String() + " (" + sign + d.Coeff.String() + "E" + apd.New(int64(d.Exponent), 0).String() + ")"
}

// BenchmarkDecimalTimesBigint is Nexmark q1's projection, 0.908 * PRICE.
func BenchmarkDecimalTimesBigint(b *testing.B) {
	s := &types.Schema{Columns: []types.Column{{Name: "PRICE", Type: types.BigintType}}}
	c := compileBench(b, "0.908 * PRICE", s)
	row := &types.Row{Values: []any{int64(94562)}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Eval(row); err != nil {
			b.Fatal(err)
		}
	}
}
