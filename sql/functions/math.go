package functions

import (
	"math"
	"math/rand/v2"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/types"

	"github.com/sqlstream/sqlstream/sql/functions/internal/java"
)

func registerMath(r *Registry) {
	for _, d := range mathDefs() {
		r.MustAddScalar(d)
	}
	for _, d := range trigDefs() {
		r.MustAddScalar(d)
	}
	for _, d := range extremeDefs() {
		r.MustAddScalar(d)
	}
	r.MarkVolatile("RANDOM")
}

// mathContext computes decimals exactly enough for any DECIMAL(38, s).
func mathContext(rounding apd.Rounder) *apd.Context {
	c := apd.BaseContext.WithPrecision(100)
	c.Rounding = rounding
	return c
}

// setScale is BigDecimal.setScale: d rounded to scale digits.
func setScale(d *apd.Decimal, scale int32, rounding apd.Rounder) (*apd.Decimal, error) {
	out := new(apd.Decimal)
	if _, err := mathContext(rounding).Quantize(out, d, -scale); err != nil {
		return nil, err
	}
	if out.IsZero() {
		out.Negative = false
	}
	return out, nil
}

// decimalValue turns a decimal result into a function result, keeping
// NULL an untyped nil when the computation failed.
func decimalValue(d *apd.Decimal, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return d, nil
}

// sameDecimal returns the type of the first argument (ABS, negation).
func sameDecimal(args []*types.Type) (*types.Type, error) { return args[0], nil }

// integralDecimal is the type of CEIL/FLOOR/ROUND of DECIMAL(p, s): the
// integer digits plus one for a carry, scale 0.
func integralDecimal(args []*types.Type) (*types.Type, error) {
	t := args[0]
	return types.DecimalOf(max(1, t.Precision-t.Scale+1), 0), nil
}

func roundTo(mode apd.Rounder) Fn {
	return call1(func(d *apd.Decimal) (any, error) { return decimalValue(setScale(d, 0, mode)) })
}

func mathDefs() []ScalarDef {
	return []ScalarDef{
		{Name: "ABS", Category: CatMath, Description: "Returns the absolute value of its argument.",
			Overloads: []Overload{
				{Sig: "ABS(INTEGER x) INTEGER", Fn: pure(func(x int32) int32 { return max(x, -x) })},
				{Sig: "ABS(BIGINT x) BIGINT", Fn: pure(func(x int64) int64 { return max(x, -x) })},
				{Sig: "ABS(DOUBLE x) DOUBLE", Fn: pure(math.Abs)},
				{Sig: "ABS(DECIMAL x) DECIMAL", Return: sameDecimal, Fn: pure(func(d *apd.Decimal) *apd.Decimal { return new(apd.Decimal).Abs(d) })},
			}},
		{Name: "CEIL", Category: CatMath, Description: "Returns the smallest integer value greater than or equal to its argument.",
			Overloads: []Overload{
				{Sig: "CEIL(INTEGER x) INTEGER", Fn: pure(func(x int32) int32 { return x })},
				{Sig: "CEIL(BIGINT x) BIGINT", Fn: pure(func(x int64) int64 { return x })},
				{Sig: "CEIL(DOUBLE x) DOUBLE", Fn: pure(math.Ceil)},
				{Sig: "CEIL(DECIMAL x) DECIMAL", Return: integralDecimal, Fn: roundTo(apd.RoundCeiling)},
			}},
		{Name: "FLOOR", Category: CatMath, Description: "Returns the largest integer value less than or equal to its argument.",
			Overloads: []Overload{
				{Sig: "FLOOR(INTEGER x) INTEGER", Fn: pure(func(x int32) int32 { return x })},
				{Sig: "FLOOR(BIGINT x) BIGINT", Fn: pure(func(x int64) int64 { return x })},
				{Sig: "FLOOR(DOUBLE x) DOUBLE", Fn: pure(math.Floor)},
				{Sig: "FLOOR(DECIMAL x) DECIMAL", Return: integralDecimal, Fn: roundTo(apd.RoundFloor)},
			}},
		roundDef(),
		truncDef(),
		{Name: "SIGN", Category: CatMath, Description: "Returns the sign of its argument as an INTEGER: -1, 0 or 1.",
			Overloads: []Overload{
				{Sig: "SIGN(INTEGER x) INTEGER", Fn: pure(func(x int32) int32 { return signOf(float64(x)) })},
				{Sig: "SIGN(BIGINT x) INTEGER", Fn: pure(func(x int64) int32 { return signOf(float64(x)) })},
				{Sig: "SIGN(DOUBLE x) INTEGER", Fn: pure(signOf)},
				{Sig: "SIGN(DECIMAL x) INTEGER", Fn: pure(func(d *apd.Decimal) int32 { return int32(d.Sign()) })},
			}},
		doubleFn("SQRT", "Returns the square root of its argument.", math.Sqrt),
		doubleFn("CBRT", "Returns the cube root of its argument.", math.Cbrt),
		doubleFn("EXP", "Returns e raised to the power of its argument.", math.Exp),
		doubleFn("LN", "Returns the natural logarithm of its argument.", math.Log),
		{Name: "LOG", Category: CatMath, Description: "Returns the natural logarithm of value, or its logarithm in the given base.",
			Overloads: []Overload{
				{Sig: "LOG(DOUBLE value) DOUBLE", Fn: pure(math.Log)},
				{Sig: "LOG(DOUBLE base, DOUBLE value) DOUBLE", Fn: pure2(func(b, v float64) float64 { return math.Log(v) / math.Log(b) })},
			}},
		{Name: "POWER", Category: CatMath, Description: "Returns base raised to the power of exponent.",
			Overloads: []Overload{{Sig: "POWER(DOUBLE base, DOUBLE exponent) DOUBLE", Fn: pure2(math.Pow)}}},
		{Name: "RANDOM", Category: CatMath, Description: "Returns a random DOUBLE between 0.0 (inclusive) and 1.0 (exclusive).",
			Overloads: []Overload{{Sig: "RANDOM() DOUBLE", Fn: func([]any) (any, error) { return rand.Float64(), nil }}}},
		{Name: "PI", Category: CatMath, Description: "Returns the value of pi.",
			Overloads: []Overload{{Sig: "PI() DOUBLE", Fn: func([]any) (any, error) { return math.Pi, nil }}}},
		doubleFn("DEGREES", "Converts radians to degrees.", func(x float64) float64 { return x * 180 / math.Pi }),
		doubleFn("RADIANS", "Converts degrees to radians.", func(x float64) float64 { return x / 180 * math.Pi }),
	}
}

func signOf(x float64) int32 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// doubleFn defines a function of one DOUBLE (integers and decimals widen).
func doubleFn(name, desc string, f func(float64) float64) ScalarDef {
	return ScalarDef{Name: name, Category: CatMath, Description: desc,
		Overloads: []Overload{{Sig: name + "(DOUBLE x) DOUBLE", Fn: pure(f)}}}
}

// roundHalfUpDouble is Math.round: halves round toward positive infinity.
func roundHalfUpDouble(x float64) float64 { return math.Floor(x + 0.5) }

// roundDecimalPlaces rounds like ksqlDB's ROUND: half up for positive
// values and half down for negative ones, so halves always go toward
// positive infinity.
func roundDecimalPlaces(d *apd.Decimal, places int32) (*apd.Decimal, error) {
	mode := apd.RoundHalfUp
	if d.Negative {
		mode = apd.RoundHalfDown
	}
	return setScale(d, places, mode)
}

func roundDef() ScalarDef {
	return ScalarDef{Name: "ROUND", Category: CatMath,
		Description: "Rounds a value to scale decimal places (default 0); halves round toward positive infinity.",
		Overloads: []Overload{
			{Sig: "ROUND(INTEGER x) BIGINT", Fn: pure(func(x int32) int64 { return int64(x) })}, // ksqlDB: Long round(int)
			{Sig: "ROUND(BIGINT x) BIGINT", Fn: pure(func(x int64) int64 { return x })},
			{Sig: "ROUND(DOUBLE x) BIGINT", Fn: pure(func(x float64) int64 { return javaLongCast(roundHalfUpDouble(x)) })},
			{Sig: "ROUND(DOUBLE x, INTEGER scale) DOUBLE", Fn: call2(roundDouble)},
			{Sig: "ROUND(DECIMAL x) DECIMAL", Return: integralDecimal, Fn: call1(func(d *apd.Decimal) (any, error) { return decimalValue(roundDecimalPlaces(d, 0)) })},
			{Sig: "ROUND(DECIMAL x, INTEGER scale) DECIMAL", Return: roundedDecimal, Fn: call2(roundDecimalKeepScale)},
		}}
}

// roundedDecimal is ROUND(DECIMAL(p, s), n): one more digit for a carry,
// the same scale.
func roundedDecimal(args []*types.Type) (*types.Type, error) {
	t := args[0]
	return types.DecimalOf(t.Precision+1, t.Scale), nil
}

func roundDecimalKeepScale(d *apd.Decimal, places int32) (any, error) {
	r, err := roundDecimalPlaces(d, places)
	if err != nil {
		return nil, err
	}
	if places >= -d.Exponent {
		return d, nil
	}
	return decimalValue(setScale(r, -d.Exponent, apd.RoundHalfUp))
}

func roundDouble(x float64, places int32) (any, error) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x, nil
	}
	d, _, err := apd.NewFromString(java.FormatDouble(x))
	if err != nil {
		return nil, err
	}
	r, err := roundDecimalPlaces(d, places)
	if err != nil {
		return nil, err
	}
	return r.Float64()
}

// javaLongCast is Java's (long) cast of a double: NaN is 0, values out of
// range saturate.
func javaLongCast(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

func truncDef() ScalarDef {
	return ScalarDef{Name: "TRUNC", Category: CatMath,
		Description: "Truncates a value toward zero to scale decimal places (default 0).",
		Overloads: []Overload{
			{Sig: "TRUNC(INTEGER x) BIGINT", Fn: pure(func(x int32) int64 { return int64(x) })}, // ksqlDB: Long trunc(Integer)
			{Sig: "TRUNC(BIGINT x) BIGINT", Fn: pure(func(x int64) int64 { return x })},
			{Sig: "TRUNC(DOUBLE x) BIGINT", Fn: pure(func(x float64) int64 { return javaLongCast(math.Trunc(x)) })},
			{Sig: "TRUNC(DOUBLE x, INTEGER scale) DOUBLE", Fn: call2(truncDouble)},
			{Sig: "TRUNC(DECIMAL x) DECIMAL", Return: integralDecimal, Fn: call1(func(d *apd.Decimal) (any, error) { return decimalValue(setScale(d, 0, apd.RoundDown)) })},
			{Sig: "TRUNC(DECIMAL x, INTEGER scale) DECIMAL", Return: sameDecimal, Fn: call2(func(d *apd.Decimal, n int32) (any, error) {
				r, err := setScale(d, n, apd.RoundDown)
				if err != nil {
					return nil, err
				}
				if n >= -d.Exponent {
					return d, nil
				}
				return decimalValue(setScale(r, -d.Exponent, apd.RoundDown))
			})},
		}}
}

func truncDouble(x float64, places int32) (any, error) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x, nil
	}
	d, _, err := apd.NewFromString(java.FormatDouble(x))
	if err != nil {
		return nil, err
	}
	r, err := setScale(d, places, apd.RoundDown)
	if err != nil {
		return nil, err
	}
	return r.Float64()
}

func trigDefs() []ScalarDef {
	defs := []ScalarDef{
		// Java's Math.sin/cos are correctly rounded intrinsics and Math.asin
		// is fdlibm; trig.go and fdlibm.go reproduce them.
		doubleFn("SIN", "Returns the sine of an angle in radians.", java.Sin),
		doubleFn("COS", "Returns the cosine of an angle in radians.", java.Cos),
		doubleFn("TAN", "Returns the tangent of an angle in radians.", math.Tan),
		doubleFn("COT", "Returns the cotangent of an angle in radians.", func(x float64) float64 { return 1 / math.Tan(x) }),
		doubleFn("ASIN", "Returns the arc sine in radians; NaN outside [-1, 1].", java.StrictAsin),
		doubleFn("ACOS", "Returns the arc cosine in radians; NaN outside [-1, 1].", math.Acos),
		doubleFn("ATAN", "Returns the arc tangent in radians.", math.Atan),
		doubleFn("SINH", "Returns the hyperbolic sine.", math.Sinh),
		doubleFn("COSH", "Returns the hyperbolic cosine.", math.Cosh),
		doubleFn("TANH", "Returns the hyperbolic tangent.", math.Tanh),
	}
	return append(defs, ScalarDef{Name: "ATAN2", Category: CatMath, Description: "Returns the angle theta of the point (x, y) in radians.",
		Overloads: []Overload{{Sig: "ATAN2(DOUBLE y, DOUBLE x) DOUBLE", Fn: pure2(math.Atan2)}}})
}
