package props

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Properties is a set of engine properties by full name (see Normalize).
type Properties map[string]string

// Normalize maps the short names users SET ('auto.offset.reset') to the
// full ksqlDB names ('ksql.streams.auto.offset.reset').
func Normalize(name string) string {
	name = strings.TrimSpace(name)
	if strings.HasPrefix(name, "ksql.") || strings.HasPrefix(name, "sqlstream.") || topLevel(name) {
		return name
	}
	return "ksql.streams." + name
}

// Merge returns p overlaid with over (normalized names).
func (p Properties) Merge(over map[string]string) Properties {
	out := make(Properties, len(p)+len(over))
	for k, v := range p {
		out[k] = v
	}
	for k, v := range over {
		out[Normalize(k)] = v
	}
	return out
}

// Sorted returns the property names in order.
func (p Properties) Sorted() []string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Text is a streamsProperties value as a property string: JSON numbers
// decoded as float64 print without an exponent.
func Text(v any) string {
	if f, ok := v.(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10)
	}
	return fmt.Sprint(v)
}
