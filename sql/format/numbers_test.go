package format

import (
	"math"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/types"
)

func mustDecimal(t testing.TB, s string) *apd.Decimal {
	d, _, err := apd.NewFromString(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestAppendJavaDouble(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{1, "1.0"},
		{-2.5, "-2.5"},
		{100, "100.0"},
		{0.001, "0.001"},
		{0.000999, "9.99E-4"},
		{9999999, "9999999.0"},
		{1e7, "1.0E7"},
		{12345678.9, "1.23456789E7"},
		{1.5e-7, "1.5E-7"},
		{-1e21, "-1.0E21"},
		{0.1 + float64(int64(2))/10, "0.30000000000000004"},
		{math.MaxFloat64, "1.7976931348623157E308"},
		{5e-324, "4.9E-324"},
		{1e23, "1.0E23"},
		{2e-5, "2.0E-5"},
		{0.3, "0.3"},
		{math.NaN(), "NaN"},
		{math.Inf(1), "Infinity"},
		{math.Inf(-1), "-Infinity"},
	} {
		if got := string(appendJavaDouble(nil, tc.in)); got != tc.want {
			t.Errorf("appendJavaDouble(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseDecimal(t *testing.T) {
	for _, tc := range []struct {
		text       string
		prec, scal int
		want       string // "" means an error
	}{
		{"12.3650", 6, 4, "12.3650"},
		{"12", 6, 4, "12.0000"},
		{".12", 33, 16, "0.1200000000000000"},
		{"12.", 4, 1, "12.0"},
		{"+1.5", 4, 2, "1.50"},
		{"-0.001", 4, 2, "0.00"},
		{"0.005", 4, 2, "0.01"},
		{"-0.005", 4, 2, "-0.01"},
		{"99.995", 4, 2, ""},
		{"1e2", 5, 2, "100.00"},
		{"1E-2", 5, 2, "0.01"},
		{"0e99", 5, 2, "0.00"},
		{"1e-99", 5, 2, "0.00"},
		// Exponents beyond apd's range are refused rather than computed.
		{"1e999999999", 5, 2, ""},
		{"1e-999999999", 5, 2, ""},
		{"1e9999999999", 5, 2, ""},
		{"123.45", 4, 2, ""},
		{"NaN", 4, 2, ""},
		{"Infinity", 4, 2, ""},
		{"1.2.3", 4, 2, ""},
		{"", 4, 2, ""},
		{"-", 4, 2, ""},
		{".", 4, 2, ""},
		{"1e", 4, 2, ""},
		{" 1", 4, 2, ""},
		{"0." + strings.Repeat("0", 600) + "1", 4, 2, ""},
	} {
		d, err := parseDecimal(tc.text, types.DecimalOf(tc.prec, tc.scal))
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("parseDecimal(%q, %d, %d) = %s, want an error", tc.text, tc.prec, tc.scal, d.Text('f'))
		case tc.want != "" && err != nil:
			t.Errorf("parseDecimal(%q, %d, %d): %v", tc.text, tc.prec, tc.scal, err)
		case tc.want != "" && d.Text('f') != tc.want:
			t.Errorf("parseDecimal(%q, %d, %d) = %s, want %s", tc.text, tc.prec, tc.scal, d.Text('f'), tc.want)
		}
	}
}

func TestAppendDecimalRescales(t *testing.T) {
	for _, tc := range []struct {
		in, typ, want string // want "" means an error
	}{
		{"1.5", "DECIMAL(4,2)", "1.50"},
		{"1.50", "DECIMAL(4,2)", "1.50"},
		{"1.505", "DECIMAL(4,2)", "1.51"},
		{"-0.001", "DECIMAL(4,2)", "0.00"},
		{"123.4", "DECIMAL(4,2)", ""},
	} {
		got, err := appendDecimal(nil, mustDecimal(t, tc.in), mustType(t, tc.typ))
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("appendDecimal(%s, %s) = %s, want an error", tc.in, tc.typ, got)
		case tc.want != "" && (err != nil || string(got) != tc.want):
			t.Errorf("appendDecimal(%s, %s) = %s, %v; want %s", tc.in, tc.typ, got, err, tc.want)
		}
	}
}

func TestAppendJSONDecimalKeepsFittingScale(t *testing.T) {
	for _, tc := range []struct {
		in, typ, want string // want "" means an error
	}{
		{"1234567.89", "DECIMAL(13,6)", "1234567.89"},
		{"1.5", "DECIMAL(4,2)", "1.5"},
		{"10", "DECIMAL(4,1)", "10"},
		{"1.505", "DECIMAL(4,2)", "1.51"},
		{"123.4", "DECIMAL(4,2)", ""},
		{"1E+2", "DECIMAL(5,1)", "100.0"},
	} {
		got, err := appendJSONDecimal(nil, mustDecimal(t, tc.in), mustType(t, tc.typ))
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("appendJSONDecimal(%s, %s) = %s, want an error", tc.in, tc.typ, got)
		case tc.want != "" && (err != nil || string(got) != tc.want):
			t.Errorf("appendJSONDecimal(%s, %s) = %s, %v; want %s", tc.in, tc.typ, got, err, tc.want)
		}
	}
}
