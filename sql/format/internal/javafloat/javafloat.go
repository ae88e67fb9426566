// Package javafloat writes floating-point numbers as Java prints them
// (Double.toString, Float.toString): what ksqlDB's Avro and Protobuf
// renderers show in PRINT and the protobuf text format.
package javafloat

import (
	"math"
	"strconv"
	"strings"
)

// Append writes f as Java's Double.toString (bits 64) or
// Float.toString (bits 32): the shortest digits that read back as the
// value, in plain notation with at least one fraction digit for
// 1e-3 <= |f| < 1e7, otherwise d.dddE±n.
func Append(buf []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(buf, "NaN"...)
	case math.IsInf(f, 1):
		return append(buf, "Infinity"...)
	case math.IsInf(f, -1):
		return append(buf, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(buf, "-0.0"...)
		}
		return append(buf, "0.0"...)
	}
	if a := math.Abs(f); a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return append(buf, s...)
	}
	s := strconv.FormatFloat(f, 'e', -1, bits) // d.ddde±XX
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	n, _ := strconv.Atoi(exp)
	return append(append(append(buf, mant...), 'E'), strconv.Itoa(n)...)
}
