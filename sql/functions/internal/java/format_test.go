package java

import (
	"math"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/types"
)

func TestJavaDouble(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {1, "1.0"}, {-23.42, "-23.42"}, {100, "100.0"},
		{0.001, "0.001"}, {0.0001, "1.0E-4"}, {1e7, "1.0E7"}, {9999999, "9999999.0"}, {1.5e-7, "1.5E-7"},
		{123456789.125, "1.23456789125E8"}, {532.8738323, "532.8738323"}, {math.MaxFloat64, "1.7976931348623157E308"},
		{math.NaN(), "NaN"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"},
	} {
		if got := FormatDouble(tc.in); got != tc.want {
			t.Errorf("FormatDouble(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestJavaDecimal(t *testing.T) {
	for _, tc := range []struct{ in, sci, plain string }{
		{"123.45", "123.45", "123.45"}, {"1E+2", "1E+2", "100"}, {"-0.00", "0.00", "0.00"},
		{"0.0000001", "1E-7", "0.0000001"}, {"0.000001", "0.000001", "0.000001"}, {"1.50", "1.50", "1.50"},
	} {
		d, _, err := apd.NewFromString(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := FormatDecimal(d); got != tc.sci {
			t.Errorf("FormatDecimal(%s) = %q, want %q", tc.in, got, tc.sci)
		}
		if got := FormatPlainDecimal(d); got != tc.plain {
			t.Errorf("FormatPlainDecimal(%s) = %q, want %q", tc.in, got, tc.plain)
		}
	}
}

// TestJavaTemporal's expectations come from OpenJDK 17 (LocalDate,
// LocalTime and DateTimeFormatter as ksqlDB uses them).
func TestJavaTemporal(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{FormatTime(60220000), "16:43:40"},
		{FormatTime(60180000), "16:43"},
		{FormatTime(0), "00:00"},
		{FormatTime(60180999), "16:43"},
		{FormatDate(1000), "1972-09-27"},
		{FormatDate(0), "1970-01-01"},
		{FormatDate(-719529), "-0001-12-31"},
		{FormatDate(2932897), "+10000-01-01"},
		{FormatTimestamp(60220000000), "1971-11-28T23:46:40.000"},
		{FormatTimestamp(-1), "1969-12-31T23:59:59.999"},
		{FormatTimestamp(types.Timestamp(1528224275715)), "2018-06-05T18:44:35.715"},
		{FormatTimestamp(253402300800000), "+10000-01-01T00:00:00.000"},
		{FormatTimestamp(-62135596800001), "0001-12-31T23:59:59.999"},
		{FormatDate(-719162), "0001-01-01"},
		{FormatTime(86399999), "23:59:59"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
