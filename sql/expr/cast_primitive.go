package expr

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/types"
)

func toStringConverter(from *types.Type) converter {
	switch from.Kind {
	case types.KindBytes:
		return nil
	}
	return func(v any) (any, error) { return JavaString(v), nil }
}

func toBooleanConverter(from *types.Type) converter {
	if from.Kind != types.KindString {
		return nil
	}
	return func(v any) (any, error) { return parseBoolean(v.(string)), nil }
}

// parseBoolean is ksqlDB's string to BOOLEAN: "true" in any case is
// TRUE, anything else FALSE.
func parseBoolean(s string) bool { return strings.EqualFold(strings.TrimSpace(s), "true") }

func toNumberConverter(from *types.Type, to types.Kind) converter {
	switch from.Kind {
	case types.KindInteger, types.KindBigint, types.KindDouble, types.KindDecimal:
		return func(v any) (any, error) { return convertNumber(v, to) }
	case types.KindString:
		return func(v any) (any, error) { return parseNumber(v.(string), to) }
	}
	return nil
}

// convertNumber converts between numeric Go representations like Java's
// primitive casts: narrowing integers wraps, doubles truncate and
// saturate, decimals truncate their fraction.
func convertNumber(v any, to types.Kind) (any, error) {
	if to == types.KindDouble {
		return toFloat64(v)
	}
	var i int64
	switch x := v.(type) {
	case int32:
		i = int64(x)
	case int64:
		i = x
	case float64:
		return floatToInt(x, to), nil
	case *apd.Decimal:
		i = decimalToInt64(x)
	}
	if to == types.KindInteger {
		return int32(i), nil
	}
	return i, nil
}

// floatToInt is Java's (int) / (long) cast: NaN is 0, out-of-range
// values saturate.
func floatToInt(f float64, to types.Kind) any {
	lo, hi := float64(math.MinInt64), float64(math.MaxInt64)
	if to == types.KindInteger {
		lo, hi = math.MinInt32, math.MaxInt32
	}
	var i int64
	switch {
	case math.IsNaN(f):
		i = 0
	case f <= lo:
		i = int64(lo)
	case f >= hi:
		i = int64(hi)
		if to == types.KindBigint {
			i = math.MaxInt64
		}
	default:
		i = int64(f)
	}
	if to == types.KindInteger {
		return int32(i)
	}
	return i
}

// decimalToInt64 truncates the fraction and keeps the low 64 bits, like
// BigDecimal.longValue().
func decimalToInt64(d *apd.Decimal) int64 {
	ctx := apd.BaseContext.WithPrecision(1000)
	ctx.Rounding = apd.RoundDown
	var t apd.Decimal
	_, _ = ctx.Quantize(&t, d, 0)
	if i, err := t.Int64(); err == nil {
		return i
	}
	bi := t.Coeff.MathBigInt()
	if t.Negative {
		bi.Neg(bi)
	}
	mask := new(big.Int).SetUint64(math.MaxUint64)
	return int64(bi.And(bi, mask).Uint64())
}

func parseNumber(s string, to types.Kind) (any, error) {
	s = strings.TrimSpace(s)
	switch to {
	case types.KindInteger:
		i, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("cannot convert '%s' to INTEGER", s)
		}
		return int32(i), nil
	case types.KindBigint:
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("cannot convert '%s' to BIGINT", s)
		}
		return i, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("cannot convert '%s' to DOUBLE", s)
	}
	return f, nil
}

// toFloat64 converts a non-NULL numeric value to float64.
func toFloat64(v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case int32:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case *apd.Decimal:
		return x.Float64()
	}
	return 0, fmt.Errorf("not a number: %v", v)
}

func toDecimalConverter(from, to *types.Type) converter {
	switch from.Kind {
	case types.KindInteger, types.KindBigint, types.KindDecimal:
		return func(v any) (any, error) { return asValue(roundDecimal(toDecimal(v), to)) }
	case types.KindDouble:
		return func(v any) (any, error) {
			f := v.(float64)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("cannot convert %s to %s", functions.FormatJavaDouble(f), to)
			}
			return asValue(roundDecimal(toDecimal(f), to))
		}
	case types.KindString:
		return func(v any) (any, error) {
			d, _, err := apd.NewFromString(strings.TrimSpace(v.(string)))
			if err != nil || d.Form != apd.Finite {
				return nil, fmt.Errorf("cannot convert '%s' to %s", v, to)
			}
			return asValue(roundDecimal(d, to))
		}
	}
	return nil
}

// roundDecimal rounds d half-up to t's scale and checks it fits t's
// precision.
func roundDecimal(d *apd.Decimal, t *types.Type) (*apd.Decimal, error) {
	out := new(apd.Decimal)
	if _, err := decimalContext().Quantize(out, d, -int32(t.Scale)); err != nil {
		return nil, err
	}
	if out.IsZero() {
		out.Negative = false
	}
	if int(out.NumDigits()) > t.Precision && !out.IsZero() {
		return nil, fmt.Errorf("numeric field overflow: %s does not fit %s", d.String(), t)
	}
	return out, nil
}

// JavaString renders a non-NULL value the way ksqlDB's CAST(x AS STRING)
// does (Java toString of its runtime objects): "[1, 2]" for arrays,
// "{k=v}" for maps, "Struct{F=1}" for structs (NULL fields omitted).
func JavaString(v any) string {
	var b strings.Builder
	writeJava(&b, v)
	return b.String()
}

func writeJava(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case string:
		b.WriteString(x)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int32:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(functions.FormatJavaDouble(x))
	case *apd.Decimal:
		b.WriteString(x.String())
	case types.Timestamp:
		b.WriteString(FormatTimestamp(x))
	case types.Date:
		b.WriteString(FormatDate(x))
	case types.Time:
		b.WriteString(FormatTime(x))
	default:
		writeJavaContainer(b, v)
	}
}

func writeJavaContainer(b *strings.Builder, v any) {
	switch x := v.(type) {
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJava(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		b.WriteByte('{')
		for i, k := range sortedKeys(x) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(k)
			b.WriteByte('=')
			writeJava(b, x[k])
		}
		b.WriteByte('}')
	case *types.StructValue:
		writeJavaStruct(b, x)
	case []byte:
		b.WriteString(fmt.Sprintf("%v", x))
	default:
		fmt.Fprint(b, x)
	}
}

func writeJavaStruct(b *strings.Builder, s *types.StructValue) {
	b.WriteString("Struct{")
	first := true
	for i, f := range s.Type.Fields {
		if s.Values[i] == nil {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(f.Name)
		b.WriteByte('=')
		writeJava(b, s.Values[i])
	}
	b.WriteByte('}')
}

// asValue returns a decimal result as a value, keeping a failed
// conversion's NULL an untyped nil.
func asValue(d *apd.Decimal, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return d, nil
}
