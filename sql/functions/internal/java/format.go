package java

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/types"
)

// ksqlDB's functions render values with Java's toString methods; these
// helpers reproduce those texts so that results match ksqlDB byte for byte.

// FormatDouble renders f as Java's Double.toString: plain notation with at
// least one fractional digit for 1e-3 <= |f| < 1e7 ("0.001", "100.0"),
// otherwise computerized scientific notation ("1.0E7", "1.5E-4"), with the
// digits of Java 19 and later (see shortestDigits). Older Java versions
// print a few values with more digits than needed (1.0E23 as
// 9.999999999999999E22).
func FormatDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0 && math.Signbit(f):
		return "-0.0"
	case f == 0:
		return "0.0"
	}
	sign := ""
	if f < 0 {
		sign = "-"
	}
	abs := math.Abs(f)
	digits, exp := shortestDigits(abs)
	if abs >= 1e-3 && abs < 1e7 {
		return sign + plainDigits(digits, exp)
	}
	frac := digits[1:]
	if frac == "" {
		frac = "0"
	}
	return sign + digits[:1] + "." + frac + "E" + strconv.Itoa(exp)
}

// shortestDigits returns the significant digits and decimal exponent of
// f > 0 as Java (19 and later) chooses them: the shortest that round-trip,
// but at least two, so a one-digit result is replaced by the two-digit
// decimal nearest to f (4.9E-324, not 5.0E-324); trailing zeros are then
// dropped again.
func shortestDigits(f float64) (string, int) {
	mant, expText, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, 64), "e")
	if len(mant) == 1 {
		mant, expText, _ = strings.Cut(strconv.FormatFloat(f, 'e', 1, 64), "e")
	}
	exp, _ := strconv.Atoi(expText)
	digits := strings.TrimRight(strings.Replace(mant, ".", "", 1), "0")
	if digits == "" {
		digits = "0"
	}
	return digits, exp
}

// plainDigits places the decimal point in digits (d.ddd × 10^exp).
func plainDigits(digits string, exp int) string {
	point := exp + 1
	switch {
	case point <= 0:
		return "0." + strings.Repeat("0", -point) + digits
	case point >= len(digits):
		return digits + strings.Repeat("0", point-len(digits)) + ".0"
	}
	return digits[:point] + "." + digits[point:]
}

// FormatDecimal renders d as Java's BigDecimal.toString (scientific notation
// when the exponent is positive or the value is very small).
func FormatDecimal(d *apd.Decimal) string {
	return UnsignedZero(d).String()
}

// FormatPlainDecimal renders d as Java's BigDecimal.toPlainString.
func FormatPlainDecimal(d *apd.Decimal) string {
	return UnsignedZero(d).Text('f')
}

// UnsignedZero drops the sign of a negative zero, which BigDecimal lacks.
func UnsignedZero(d *apd.Decimal) *apd.Decimal {
	if d.IsZero() && d.Negative {
		var c apd.Decimal
		c.Set(d)
		c.Negative = false
		return &c
	}
	return d
}

// FormatTime renders a TIME as ksqlDB does (LocalTime.toString at second
// precision): "HH:mm", or "HH:mm:ss" when the seconds are not zero.
func FormatTime(t types.Time) string {
	secs := int(t) / 1000
	h, m, s := secs/3600, secs/60%60, secs%60
	if s == 0 {
		return fmt.Sprintf("%02d:%02d", h, m)
	}
	return fmt.Sprintf("%02d:%02d:%02d", h, m, s)
}

// FormatDate renders a DATE as LocalDate.toString: yyyy-MM-dd, with a sign
// for years outside 0000..9999.
func FormatDate(d types.Date) string {
	tm := time.Unix(int64(d)*86400, 0).UTC()
	return javaYear(tm.Year()) + tm.Format("-01-02")
}

// FormatTimestamp renders a TIMESTAMP as ksqlDB's yyyy-MM-dd'T'HH:mm:ss.SSS
// in UTC; 'yyyy' is the year of the era, so 1 BC prints as 0001.
func FormatTimestamp(ts types.Timestamp) string {
	tm := time.UnixMilli(int64(ts)).UTC()
	y := tm.Year()
	if y <= 0 {
		y = 1 - y
	}
	return javaYear(y) + tm.Format("-01-02T15:04:05.000")
}

func javaYear(y int) string {
	switch {
	case y > 9999:
		return "+" + strconv.Itoa(y)
	case y < 0:
		return fmt.Sprintf("-%04d", -y)
	}
	return fmt.Sprintf("%04d", y)
}

// ToString renders a primitive value as Java's String.valueOf does for
// ksqlDB's value classes; ok is false for types that are not primitive.
func ToString(v any) (s string, ok bool) {
	switch x := v.(type) {
	case nil:
		return "null", true
	case bool:
		return strconv.FormatBool(x), true
	case int32:
		return strconv.FormatInt(int64(x), 10), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		return FormatDouble(x), true
	case *apd.Decimal:
		return FormatDecimal(x), true
	case string:
		return x, true
	}
	return "", false
}
