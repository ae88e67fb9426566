package functions

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/types"

	"github.com/sqlstream/sqlstream/sql/functions/internal/java"
)

// toJSONString renders any value as JSON text the way ksqlDB's
// TO_JSON_STRING does: NULL is "null", decimals are plain numbers, doubles
// use Java's Double.toString, BYTES are base64 strings, TIMESTAMP, DATE and
// TIME are strings in ksqlDB's formats, and struct fields and map keys are
// written in sorted order.
func toJSONString(args []any) (any, error) {
	var b strings.Builder
	if err := writeValueJSON(&b, args[0]); err != nil {
		return nil, err
	}
	return b.String(), nil
}

func writeValueJSON(b *strings.Builder, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int32:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		writeJSONDouble(b, x)
	case *apd.Decimal:
		b.WriteString(java.FormatPlainDecimal(x))
	case string:
		java.WriteJSONString(b, x)
	case []byte:
		java.WriteJSONString(b, java.MimeBase64(x))
	case types.Timestamp:
		java.WriteJSONString(b, java.FormatTimestamp(x))
	case types.Date:
		java.WriteJSONString(b, java.FormatDate(x))
	case types.Time:
		java.WriteJSONString(b, java.FormatTime(x))
	case []any:
		return writeArrayJSON(b, x)
	case map[string]any:
		return writeMapJSON(b, x)
	case *types.StructValue:
		return writeStructJSON(b, x)
	default:
		return fmt.Errorf("TO_JSON_STRING: unsupported value of Go type %T", v)
	}
	return nil
}

// writeJSONDouble writes non-finite doubles as strings, as Jackson does.
func writeJSONDouble(b *strings.Builder, f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		java.WriteJSONString(b, java.FormatDouble(f))
		return
	}
	b.WriteString(java.FormatDouble(f))
}

func writeArrayJSON(b *strings.Builder, elems []any) error {
	b.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := writeValueJSON(b, e); err != nil {
			return err
		}
	}
	b.WriteByte(']')
	return nil
}

func writeMapJSON(b *strings.Builder, m map[string]any) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, types.CompareStrings)
	return writeFieldsJSON(b, keys, func(k string) any { return m[k] })
}

func writeStructJSON(b *strings.Builder, s *types.StructValue) error {
	keys := make([]string, len(s.Type.Fields))
	byName := make(map[string]any, len(keys))
	for i, f := range s.Type.Fields {
		keys[i] = f.Name
		byName[f.Name] = s.Values[i]
	}
	slices.SortFunc(keys, types.CompareStrings)
	return writeFieldsJSON(b, keys, func(k string) any { return byName[k] })
}

func writeFieldsJSON(b *strings.Builder, keys []string, value func(string) any) error {
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		java.WriteJSONString(b, k)
		b.WriteByte(':')
		if err := writeValueJSON(b, value(k)); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}
