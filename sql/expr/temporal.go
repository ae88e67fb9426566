package expr

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sqlstream/sqlstream/sql/types"
)

const millisPerDay = 24 * 60 * 60 * 1000

// FormatTimestamp renders a TIMESTAMP as ksqlDB does in CAST and JSON-less
// contexts: "2022-04-28T21:44:47.943" (UTC, always with milliseconds).
func FormatTimestamp(ts types.Timestamp) string {
	return time.UnixMilli(int64(ts)).UTC().Format("2006-01-02T15:04:05.000")
}

// FormatDate renders a DATE as "yyyy-MM-dd".
func FormatDate(d types.Date) string {
	return time.Unix(int64(d)*86400, 0).UTC().Format("2006-01-02")
}

// FormatTime renders a TIME like Java's ISO_LOCAL_TIME: "HH:mm:ss" plus
// the fraction of a second, without trailing zeros, when it is not zero.
func FormatTime(t types.Time) string {
	ms := int64(t)
	s := fmt.Sprintf("%02d:%02d:%02d", ms/3600000, ms/60000%60, ms/1000%60)
	if frac := ms % 1000; frac != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%03d", frac), "0")
	}
	return s
}

// parseTimestampLiteral parses ksqlDB's timestamp strings: an ISO date
// ("2020", "2020-01", "2020-01-02"), optionally "T" and a time ("10",
// "10:00", "10:00:05", "10:00:05.123"), optionally a zone ("Z", "+02:00",
// "+0200"). Without a zone the time is UTC.
func parseTimestampLiteral(s string) (types.Timestamp, error) {
	s = strings.TrimSpace(s)
	datePart, timePart, hasTime := strings.Cut(s, "T")
	days, err := parseDateParts(datePart)
	if err != nil {
		return 0, fmt.Errorf("cannot parse '%s' as a TIMESTAMP", s)
	}
	ms := int64(days) * millisPerDay
	if !hasTime {
		return types.Timestamp(ms), nil
	}
	clock, offset, err := splitZone(timePart)
	if err != nil {
		return 0, fmt.Errorf("cannot parse '%s' as a TIMESTAMP", s)
	}
	if endOfDay(clock) {
		return types.Timestamp(ms + millisPerDay - offset), nil
	}
	t, err := parseClock(clock)
	if err != nil {
		return 0, fmt.Errorf("cannot parse '%s' as a TIMESTAMP", s)
	}
	return types.Timestamp(ms + int64(t) - offset), nil
}

// endOfDay reports whether a timestamp's clock is 24:00 (also "24",
// "24:00:00", "24:00:00.000"), which Java's ISO parser, and so ksqlDB,
// reads as midnight of the next day.
func endOfDay(clock string) bool {
	rest, ok := strings.CutPrefix(clock, "24")
	return ok && strings.Trim(rest, ":.0") == "" && len(rest) <= len(":00:00.000")
}

// parseDateParts parses "yyyy[-MM[-dd]]" into days since the epoch.
func parseDateParts(s string) (types.Date, error) {
	parts := strings.Split(s, "-")
	if len(parts) > 3 || len(parts[0]) < 4 {
		return 0, fmt.Errorf("bad date")
	}
	nums := []int{0, 1, 1}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || i > 0 && len(p) != 2 {
			return 0, fmt.Errorf("bad date")
		}
		nums[i] = n
	}
	if nums[1] < 1 || nums[1] > 12 || nums[2] < 1 || nums[2] > 31 {
		return 0, fmt.Errorf("bad date")
	}
	t := time.Date(nums[0], time.Month(nums[1]), nums[2], 0, 0, 0, 0, time.UTC)
	if t.Day() != nums[2] {
		return 0, fmt.Errorf("bad date")
	}
	return types.Date(t.Unix() / 86400), nil
}

// splitZone separates a trailing zone offset from a clock time and
// returns the offset in milliseconds.
func splitZone(s string) (string, int64, error) {
	if strings.HasSuffix(s, "Z") {
		return s[:len(s)-1], 0, nil
	}
	i := strings.LastIndexAny(s, "+-")
	if i < 0 {
		return s, 0, nil
	}
	zone := strings.ReplaceAll(s[i+1:], ":", "")
	if len(zone) != 4 && len(zone) != 2 {
		return "", 0, fmt.Errorf("bad zone")
	}
	h, err1 := strconv.Atoi(zone[:2])
	m := 0
	var err2 error
	if len(zone) == 4 {
		m, err2 = strconv.Atoi(zone[2:])
	}
	if err1 != nil || err2 != nil {
		return "", 0, fmt.Errorf("bad zone")
	}
	off := int64(h*3600000 + m*60000)
	if s[i] == '-' {
		off = -off
	}
	return s[:i], off, nil
}

// parseClock parses "HH[:mm[:ss[.fff…]]]" into milliseconds of the day.
func parseClock(s string) (types.Time, error) {
	main, frac, _ := strings.Cut(s, ".")
	parts := strings.Split(main, ":")
	if len(parts) > 3 {
		return 0, fmt.Errorf("bad time")
	}
	limits := []int{24, 60, 60}
	ms := 0
	unit := []int{3600000, 60000, 1000}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || len(p) != 2 || n >= limits[i] {
			return 0, fmt.Errorf("bad time")
		}
		ms += n * unit[i]
	}
	if frac != "" {
		if len(parts) != 3 {
			return 0, fmt.Errorf("bad time")
		}
		f, err := strconv.Atoi((frac + "000")[:3])
		if err != nil {
			return 0, fmt.Errorf("bad time")
		}
		ms += f
	}
	return types.Time(ms), nil
}

func toTemporalConverter(from *types.Type, to types.Kind) converter {
	switch {
	case from.Kind == types.KindString:
		return parseTemporal(to)
	case from.Kind == types.KindTimestamp && to == types.KindDate:
		return func(v any) (any, error) { return types.Date(floorDiv(int64(v.(types.Timestamp)), millisPerDay)), nil }
	case from.Kind == types.KindTimestamp && to == types.KindTime:
		return func(v any) (any, error) { return types.Time(floorMod(int64(v.(types.Timestamp)), millisPerDay)), nil }
	case from.Kind == types.KindDate && to == types.KindTimestamp:
		return func(v any) (any, error) { return types.Timestamp(int64(v.(types.Date)) * millisPerDay), nil }
	case from.Kind == types.KindTime && to == types.KindTimestamp:
		return func(v any) (any, error) { return types.Timestamp(int64(v.(types.Time))), nil }
	}
	return nil
}

func parseTemporal(to types.Kind) converter {
	switch to {
	case types.KindDate:
		return func(v any) (any, error) {
			d, err := parseDateParts(strings.TrimSpace(v.(string)))
			if err != nil {
				return nil, fmt.Errorf("cannot parse '%s' as a DATE", v)
			}
			return d, nil
		}
	case types.KindTime:
		return func(v any) (any, error) {
			t, err := parseClock(strings.TrimSpace(v.(string)))
			if err != nil {
				return nil, fmt.Errorf("cannot parse '%s' as a TIME", v)
			}
			return t, nil
		}
	}
	return func(v any) (any, error) { return parseTimestampLiteral(v.(string)) }
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
