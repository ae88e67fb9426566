package java

import "math"

// GEO_DISTANCE must reproduce ksqlDB's doubles to the last bit, and Go's
// math.Sin, math.Cos and math.Asin differ from Java's in the last place
// for some inputs. These are ports of fdlibm's algorithms (what
// java.lang.StrictMath implements), valid for the arguments GEO_DISTANCE
// produces (|x| <= 2^19·π/2 for sin and cos; larger ones fall back to the
// math package).

func hiWord(x float64) uint32 { return uint32(math.Float64bits(x) >> 32) }

func loWord(x float64) uint32 { return uint32(math.Float64bits(x)) }

// withLoWord returns x with its low 32 bits replaced.
func withLoWord(x float64, lo uint32) float64 {
	return math.Float64frombits(math.Float64bits(x)&^0xffffffff | uint64(lo))
}

// StrictSin is StrictMath.sin.
func StrictSin(x float64) float64 {
	ix := hiWord(x) & 0x7fffffff
	switch {
	case ix <= 0x3fe921fb:
		return kernelSin(x, 0, false)
	case ix >= 0x7ff00000:
		return math.NaN()
	case ix > 0x413921fb:
		return math.Sin(x)
	}
	n, y0, y1 := remPio2(x)
	switch n & 3 {
	case 0:
		return kernelSin(y0, y1, true)
	case 1:
		return kernelCos(y0, y1)
	case 2:
		return -kernelSin(y0, y1, true)
	}
	return -kernelCos(y0, y1)
}

// StrictCos is StrictMath.cos.
func StrictCos(x float64) float64 {
	ix := hiWord(x) & 0x7fffffff
	switch {
	case ix <= 0x3fe921fb:
		return kernelCos(x, 0)
	case ix >= 0x7ff00000:
		return math.NaN()
	case ix > 0x413921fb:
		return math.Cos(x)
	}
	n, y0, y1 := remPio2(x)
	switch n & 3 {
	case 0:
		return kernelCos(y0, y1)
	case 1:
		return -kernelSin(y0, y1, true)
	case 2:
		return -kernelCos(y0, y1)
	}
	return kernelSin(y0, y1, true)
}

// kernelSin is sin on [-π/4, π/4]; y is the tail of x when hasTail.
func kernelSin(x, y float64, hasTail bool) float64 {
	const (
		s1 = -1.66666666666666324348e-01
		s2 = 8.33333333332248946124e-03
		s3 = -1.98412698298579493134e-04
		s4 = 2.75573137070700676789e-06
		s5 = -2.50507602534068634195e-08
		s6 = 1.58969099521155010221e-10
	)
	if hiWord(x)&0x7fffffff < 0x3e400000 && int(x) == 0 {
		return x
	}
	z := x * x
	v := z * x
	r := s2 + z*(s3+z*(s4+z*(s5+z*s6)))
	if !hasTail {
		return x + v*(s1+z*r)
	}
	return x - ((z*(0.5*y-v*r) - y) - v*s1)
}

// kernelCos is cos on [-π/4, π/4]; y is the tail of x.
func kernelCos(x, y float64) float64 {
	const (
		c1 = 4.16666666666666019037e-02
		c2 = -1.38888888888741095749e-03
		c3 = 2.48015872894767294178e-05
		c4 = -2.75573143513906633035e-07
		c5 = 2.08757232129817482790e-09
		c6 = -1.13596475577881948265e-11
	)
	ix := hiWord(x) & 0x7fffffff
	if ix < 0x3e400000 && int(x) == 0 {
		return 1
	}
	z := x * x
	r := z * (c1 + z*(c2+z*(c3+z*(c4+z*(c5+z*c6)))))
	if ix < 0x3fd33333 {
		return 1 - (0.5*z - (z*r - x*y))
	}
	qx := 0.28125
	if ix <= 0x3fe90000 {
		qx = math.Float64frombits(uint64(ix-0x00200000) << 32)
	}
	hz := 0.5*z - qx
	a := 1 - qx
	return a - (hz - (z*r - x*y))
}

// remPio2 reduces x (|x| <= 2^19·π/2) to y0+y1 in [-π/4, π/4] and the
// number n of quarter turns removed.
func remPio2(x float64) (n int, y0, y1 float64) {
	const (
		invpio2 = 6.36619772367581382433e-01
		pio2_1  = 1.57079632673412561417e+00
		pio2_1t = 6.07710050650619224932e-11
		pio2_2  = 6.07710050630396597660e-11
		pio2_2t = 2.02226624879595063154e-21
		pio2_3  = 2.02226624871116645580e-21
		pio2_3t = 8.47842766036889956997e-32
	)
	ix := hiWord(x) & 0x7fffffff
	neg := x < 0
	t := math.Abs(x)
	if ix < 0x4002d97c { // |x| < 3π/4: n = ±1
		z := t - pio2_1
		if ix != 0x3ff921fb {
			y0 = z - pio2_1t
			y1 = (z - y0) - pio2_1t
		} else {
			z -= pio2_2
			y0 = z - pio2_2t
			y1 = (z - y0) - pio2_2t
		}
		return remPio2Result(1, y0, y1, neg)
	}
	n = int(t*invpio2 + 0.5)
	fn := float64(n)
	r := t - fn*pio2_1
	w := fn * pio2_1t
	j := ix >> 20
	y0 = r - w
	if j-(hiWord(y0)>>20)&0x7ff > 16 { // second round: 118 bits
		t = r
		w = fn * pio2_2
		r = t - w
		w = fn*pio2_2t - ((t - r) - w)
		y0 = r - w
		if j-(hiWord(y0)>>20)&0x7ff > 49 { // third round: 151 bits
			t = r
			w = fn * pio2_3
			r = t - w
			w = fn*pio2_3t - ((t - r) - w)
			y0 = r - w
		}
	}
	y1 = (r - y0) - w
	return remPio2Result(n, y0, y1, neg)
}

func remPio2Result(n int, y0, y1 float64, neg bool) (int, float64, float64) {
	if neg {
		return -n, -y0, -y1
	}
	return n, y0, y1
}

// StrictAsin is StrictMath.asin.
func StrictAsin(x float64) float64 {
	const (
		pio2Hi = 1.57079632679489655800e+00
		pio2Lo = 6.12323399573676603587e-17
		pio4Hi = 7.85398163397448278999e-01
	)
	ix := hiWord(x) & 0x7fffffff
	switch {
	case ix >= 0x3ff00000:
		if ix-0x3ff00000|loWord(x) == 0 {
			return x*pio2Hi + x*pio2Lo
		}
		return math.NaN()
	case ix < 0x3e400000:
		return x
	case ix < 0x3fe00000:
		t := x * x
		return x + x*asinRatio(t)
	}
	w := 1 - math.Abs(x)
	t := w * 0.5
	s := math.Sqrt(t)
	var res float64
	if ix >= 0x3fef3333 {
		res = pio2Hi - (2.0*(s+s*asinRatio(t)) - pio2Lo)
	} else {
		w = withLoWord(s, 0)
		c := (t - w*w) / (s + w)
		p := 2.0*s*asinRatio(t) - (pio2Lo - 2.0*c)
		q := pio4Hi - 2.0*w
		res = pio4Hi - (p - q)
	}
	if x < 0 {
		return -res
	}
	return res
}

// asinRatio is fdlibm's rational approximation p(t)/q(t) for asin.
func asinRatio(t float64) float64 {
	const (
		pS0 = 1.66666666666666657415e-01
		pS1 = -3.25565818622400915405e-01
		pS2 = 2.01212532134862925881e-01
		pS3 = -4.00555345006794114027e-02
		pS4 = 7.91534994289814532176e-04
		pS5 = 3.47933107596021167570e-05
		qS1 = -2.40339491173441421878e+00
		qS2 = 2.02094576023350569471e+00
		qS3 = -6.88283971605453293030e-01
		qS4 = 7.70381505559019352791e-02
	)
	p := t * (pS0 + t*(pS1+t*(pS2+t*(pS3+t*(pS4+t*pS5)))))
	q := 1 + t*(qS1+t*(qS2+t*(qS3+t*qS4)))
	return p / q
}
