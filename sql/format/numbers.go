package format

import (
	"fmt"
	"math"
	"strconv"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/types"
)

// maxDecimalText bounds the length of decimal text: far more digits than
// any DECIMAL holds, short enough that hostile input stays cheap.
const maxDecimalText = 512

// parseDecimal parses decimal text the way Java's BigDecimal(String) does
// (optional sign, digits with an optional point, optional exponent; no
// NaN or Infinity) and fits it to t (see fitDecimal).
func parseDecimal(text string, t *types.Type) (*apd.Decimal, error) {
	if len(text) > maxDecimalText {
		return nil, fmt.Errorf("decimal text too long (%d characters)", len(text))
	}
	if !isDecimalText(text) {
		return nil, fmt.Errorf("not a decimal number")
	}
	d, _, err := apd.NewFromString(text)
	if err != nil {
		return nil, fmt.Errorf("not a decimal number")
	}
	return fitDecimal(d, t)
}

// isDecimalText reports whether s is [+-]digits[.digits][e[+-]digits] with
// at least one mantissa digit.
func isDecimalText(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for ; i < len(s) && isDigit(s[i]); i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && isDigit(s[i]); i++ {
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		start := i
		for ; i < len(s) && isDigit(s[i]); i++ {
		}
		if i == start || i-start > 9 {
			return false
		}
	}
	return i == len(s)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// fitDecimal returns d rescaled to t's scale (rounding half up, as ksqlDB
// does), or an error when the value needs more than t's precision.
func fitDecimal(d *apd.Decimal, t *types.Type) (*apd.Decimal, error) {
	if d.Form != apd.Finite {
		return nil, fmt.Errorf("not a finite decimal")
	}
	if d.IsZero() {
		return apd.New(0, int32(-t.Scale)), nil
	}
	if intDigits := d.NumDigits() + int64(d.Exponent); intDigits > int64(t.Precision-t.Scale) {
		return nil, overflowError(d, t)
	}
	ctx := apd.Context{
		Precision:   uint32(max(t.Precision, 1)),
		MaxExponent: apd.MaxExponent,
		MinExponent: apd.MinExponent,
		Traps:       apd.DefaultTraps,
		Rounding:    apd.RoundHalfUp,
	}
	out := new(apd.Decimal)
	if _, err := ctx.Quantize(out, d, int32(-t.Scale)); err != nil {
		return nil, overflowError(d, t)
	}
	if out.IsZero() {
		out.Negative = false
	}
	return out, nil
}

func overflowError(d *apd.Decimal, t *types.Type) error {
	text := d.String() // scientific notation for huge exponents
	if adj := d.NumDigits() + int64(d.Exponent); adj > -64 && adj < 64 {
		text = d.Text('f')
	}
	return fmt.Errorf("Numeric field overflow: A field with precision %d and scale %d "+
		"must round to an absolute value less than 10^%d. Got %s",
		t.Precision, t.Scale, t.Precision-t.Scale, text)
}

// appendDecimal appends d in plain notation (never an exponent) at the
// scale of t (10.10, 0.0001, 12345678987654321.2345678987654321); a value
// with another scale is rescaled first, and one that does not fit t is an
// error.
func appendDecimal(buf []byte, d *apd.Decimal, t *types.Type) ([]byte, error) {
	if t.Precision > 0 && d.Exponent != int32(-t.Scale) {
		fit, err := fitDecimal(d, t)
		if err != nil {
			return buf, err
		}
		d = fit
	}
	return d.Append(buf, 'f'), nil
}

// appendJSONDecimal appends d as ksqlDB's JSON serializer writes a
// BigDecimal: at its own scale when that fits t (GREATEST(DECIMAL(9,2),
// DECIMAL(7,6)) is a DECIMAL(13,6) whose value 1234567.89 keeps scale 2),
// otherwise rescaled to t's (see appendDecimal).
func appendJSONDecimal(buf []byte, d *apd.Decimal, t *types.Type) ([]byte, error) {
	if fitsAsIs(d, t) {
		return d.Append(buf, 'f'), nil
	}
	return appendDecimal(buf, d, t)
}

// fitsAsIs reports whether the finite d has at most t's scale and
// t.Precision-t.Scale integer digits.
func fitsAsIs(d *apd.Decimal, t *types.Type) bool {
	if t.Precision == 0 || d.Form != apd.Finite || d.Exponent > 0 || -d.Exponent > int32(t.Scale) {
		return false
	}
	return d.NumDigits()+int64(d.Exponent) <= int64(t.Precision-t.Scale)
}

// appendJavaDouble appends f as Java's Double.toString prints it (and so
// as ksqlDB writes DOUBLE in JSON and DELIMITED): the shortest digits that
// round-trip, plain between 10^-3 and 10^7 with at least one fractional
// digit ("2.0", "0.001"), otherwise computerized scientific notation
// ("1.0E7", "1.2345E-5"); NaN, Infinity, -Infinity.
func appendJavaDouble(buf []byte, f float64) []byte {
	if special, ok := javaSpecial(f); ok {
		return append(buf, special...)
	}
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64)
	neg := e[0] == '-'
	if neg {
		e = e[1:]
		buf = append(buf, '-')
	}
	digits, exp := splitExp(e)
	abs := math.Abs(f)
	if abs >= 1e-3 && abs < 1e7 {
		return appendPlain(buf, digits, exp)
	}
	if len(digits) == 1 {
		// Java prints at least two significant digits in scientific
		// notation, correctly rounded: 4.9E-324, not 5.0E-324.
		e = strconv.AppendFloat(tmp[:0], abs, 'e', 1, 64)
		digits, exp = splitExp(e)
	}
	buf = append(buf, digits[0], '.')
	if len(digits) > 1 {
		buf = append(buf, digits[1:]...)
	} else {
		buf = append(buf, '0')
	}
	buf = append(buf, 'E')
	return strconv.AppendInt(buf, int64(exp), 10)
}

// javaSpecial returns Java's text for NaN, the infinities and the zeros.
func javaSpecial(f float64) (string, bool) {
	switch {
	case math.IsNaN(f):
		return "NaN", true
	case math.IsInf(f, 1):
		return "Infinity", true
	case math.IsInf(f, -1):
		return "-Infinity", true
	case f == 0 && math.Signbit(f):
		return "-0.0", true
	case f == 0:
		return "0.0", true
	}
	return "", false
}

// splitExp splits "d.ddde±xx" into the digits "dddd" and the exponent.
func splitExp(e []byte) (digits []byte, exp int) {
	i := 0
	for i < len(e) && e[i] != 'e' {
		i++
	}
	mant := e[:i]
	x, _ := strconv.Atoi(string(e[i+1:]))
	digits = make([]byte, 0, len(mant))
	for _, c := range mant {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	return digits, x
}

// appendPlain lays out digits × 10^(exp-len+1) as d+.d+.
func appendPlain(buf, digits []byte, exp int) []byte {
	if exp < 0 {
		buf = append(buf, '0', '.')
		for i := 0; i < -exp-1; i++ {
			buf = append(buf, '0')
		}
		return append(buf, digits...)
	}
	for i := 0; i <= exp; i++ {
		if i < len(digits) {
			buf = append(buf, digits[i])
		} else {
			buf = append(buf, '0')
		}
	}
	buf = append(buf, '.')
	if exp+1 < len(digits) {
		return append(buf, digits[exp+1:]...)
	}
	return append(buf, '0')
}
