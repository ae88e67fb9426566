package functions

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/sqlstream/sqlstream/sql/types"
)

const millisPerDay = 86400000

// timeCache memoizes compiled patterns and zones: the pattern argument
// is nearly always a literal, so each distinct text is compiled once per
// registry.
type timeCache struct {
	mu      sync.Mutex
	formats map[string]*TimeFormat
	zones   map[string]*time.Location
}

// cacheLimit bounds the caches when patterns come from data.
const cacheLimit = 512

func newTimeCache() *timeCache {
	return &timeCache{formats: map[string]*TimeFormat{}, zones: map[string]*time.Location{}}
}

func (c *timeCache) format(pattern string) (*TimeFormat, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.formats[pattern]; ok {
		return f, nil
	}
	f, err := CompileTimeFormat(pattern)
	if err != nil {
		return nil, err
	}
	if len(c.formats) >= cacheLimit {
		clear(c.formats)
	}
	c.formats[pattern] = f
	return f, nil
}

func (c *timeCache) zone(name string) (*time.Location, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if z, ok := c.zones[name]; ok {
		return z, nil
	}
	z, err := ParseZone(name)
	if err != nil {
		return nil, err
	}
	if len(c.zones) >= cacheLimit {
		clear(c.zones)
	}
	c.zones[name] = z
	return z, nil
}

func registerDateTime(r *Registry) {
	c := newTimeCache()
	defs := append(epochDefs(), c.timestampFormatDefs()...)
	defs = append(defs, c.dateTimeFormatDefs()...)
	defs = append(defs, arithmeticDefs()...)
	defs = append(defs, c.convertTZDef())
	for _, d := range defs {
		r.MustAddScalar(d)
	}
	r.MarkVolatile("UNIX_TIMESTAMP")
	r.MarkVolatile("UNIX_DATE")
}

func epochDefs() []ScalarDef {
	return []ScalarDef{
		{Name: "UNIX_TIMESTAMP", Category: CatDateTime, Description: "Returns the current time, or the given TIMESTAMP, in milliseconds since the Unix epoch.",
			Overloads: []Overload{
				{Sig: "UNIX_TIMESTAMP() BIGINT", Fn: func([]any) (any, error) { return time.Now().UnixMilli(), nil }},
				{Sig: "UNIX_TIMESTAMP(TIMESTAMP ts) BIGINT", Fn: pure(func(ts types.Timestamp) int64 { return int64(ts) })},
			}},
		{Name: "UNIX_DATE", Category: CatDateTime, Description: "Returns the current date, or the given DATE, in days since the Unix epoch.",
			Overloads: []Overload{
				{Sig: "UNIX_DATE() INTEGER", Fn: func([]any) (any, error) { return int32(time.Now().Unix() / 86400), nil }},
				{Sig: "UNIX_DATE(DATE date) INTEGER", Fn: pure(func(d types.Date) int32 { return int32(d) })},
			}},
		{Name: "FROM_UNIXTIME", Category: CatDateTime, Description: "Converts milliseconds since the Unix epoch to a TIMESTAMP.",
			Overloads: []Overload{{Sig: "FROM_UNIXTIME(BIGINT millis) TIMESTAMP", Fn: pure(func(ms int64) types.Timestamp { return types.Timestamp(ms) })}}},
		{Name: "FROM_DAYS", Category: CatDateTime, Description: "Converts days since the Unix epoch to a DATE.",
			Overloads: []Overload{{Sig: "FROM_DAYS(INTEGER days) DATE", Fn: pure(func(d int32) types.Date { return types.Date(d) })}}},
	}
}

// formatMillis renders epoch millis in zone with pattern.
func (c *timeCache) formatMillis(ms int64, pattern, zone string) (any, error) {
	f, err := c.format(pattern)
	if err != nil {
		return nil, err
	}
	loc, err := c.zone(zone)
	if err != nil {
		return nil, err
	}
	if loc == time.UTC {
		return f.formatUTC(ms), nil
	}
	return f.Format(time.UnixMilli(ms).In(loc)), nil
}

// parseMillis parses text with pattern; times without a zone are in zone.
func (c *timeCache) parseMillis(text, pattern, zone string) (int64, error) {
	f, err := c.format(pattern)
	if err != nil {
		return 0, err
	}
	loc, err := c.zone(zone)
	if err != nil {
		return 0, err
	}
	t, err := f.Parse(text, loc)
	if err != nil {
		return 0, err
	}
	return t.UnixMilli(), nil
}

func (c *timeCache) timestampFormatDefs() []ScalarDef {
	toString := func(a []any) (any, error) {
		return c.formatMillis(millisOf(a[0]), a[1].(string), zoneArg(a, 2))
	}
	parseMillis := func(a []any) (any, error) { return c.parseMillis(a[0].(string), a[1].(string), zoneArg(a, 2)) }
	parseTS := func(a []any) (any, error) {
		ms, err := c.parseMillis(a[0].(string), a[1].(string), zoneArg(a, 2))
		return types.Timestamp(ms), err
	}
	return []ScalarDef{
		{Name: "TIMESTAMPTOSTRING", Category: CatDateTime, Description: "Formats epoch milliseconds with a java.time pattern, in UTC or the given zone.",
			Overloads: []Overload{
				{Sig: "TIMESTAMPTOSTRING(BIGINT epochMilli, STRING formatPattern) STRING", Fn: toString},
				{Sig: "TIMESTAMPTOSTRING(BIGINT epochMilli, STRING formatPattern, STRING timeZone) STRING", Fn: toString},
			}},
		{Name: "STRINGTOTIMESTAMP", Category: CatDateTime, Description: "Parses a string with a java.time pattern into epoch milliseconds, in UTC or the given zone.",
			Overloads: []Overload{
				{Sig: "STRINGTOTIMESTAMP(STRING formattedTimestamp, STRING formatPattern) BIGINT", Fn: parseMillis},
				{Sig: "STRINGTOTIMESTAMP(STRING formattedTimestamp, STRING formatPattern, STRING timeZone) BIGINT", Fn: parseMillis},
			}},
		{Name: "FORMAT_TIMESTAMP", Category: CatDateTime, Description: "Formats a TIMESTAMP with a java.time pattern, in UTC or the given zone.",
			Overloads: []Overload{
				{Sig: "FORMAT_TIMESTAMP(TIMESTAMP ts, STRING formatPattern) STRING", Fn: toString},
				{Sig: "FORMAT_TIMESTAMP(TIMESTAMP ts, STRING formatPattern, STRING timeZone) STRING", Fn: toString},
			}},
		{Name: "PARSE_TIMESTAMP", Category: CatDateTime, Description: "Parses a string with a java.time pattern into a TIMESTAMP, in UTC or the given zone.",
			Overloads: []Overload{
				{Sig: "PARSE_TIMESTAMP(STRING formattedTimestamp, STRING formatPattern) TIMESTAMP", Fn: parseTS},
				{Sig: "PARSE_TIMESTAMP(STRING formattedTimestamp, STRING formatPattern, STRING timeZone) TIMESTAMP", Fn: parseTS},
			}},
	}
}

func millisOf(v any) int64 {
	if ts, ok := v.(types.Timestamp); ok {
		return int64(ts)
	}
	return v.(int64)
}

func zoneArg(a []any, i int) string {
	if len(a) > i {
		return a[i].(string)
	}
	return "UTC"
}

func (c *timeCache) dateTimeFormatDefs() []ScalarDef {
	fmtDate := func(a []any) (any, error) {
		return c.formatMillis(int64(a[0].(types.Date))*millisPerDay, a[1].(string), "UTC")
	}
	// PARSE_DATE ignores text after the pattern (QTT null.json expects
	// PARSE_DATE('2003-12-24-01-01', 'yyyy-MM-dd') to be 2003-12-24).
	parseDate := func(a []any) (any, error) {
		f, err := c.format(a[1].(string))
		if err != nil {
			return nil, err
		}
		t, _, err := f.ParsePrefix(a[0].(string), time.UTC)
		if err != nil {
			return nil, err
		}
		return types.Date(floorDiv(t.UnixMilli(), millisPerDay)), nil
	}
	fmtTime := func(a []any) (any, error) { return c.formatMillis(int64(a[0].(types.Time)), a[1].(string), "UTC") }
	parseTime := func(a []any) (any, error) {
		ms, err := c.parseMillis(a[0].(string), a[1].(string), "UTC")
		return types.Time(floorMod(ms, millisPerDay)), err
	}
	def := func(name, sig, desc string, fn Fn) ScalarDef {
		return ScalarDef{Name: name, Category: CatDateTime, Description: desc, Overloads: []Overload{{Sig: sig, Fn: fn}}}
	}
	return []ScalarDef{
		def("FORMAT_DATE", "FORMAT_DATE(DATE date, STRING formatPattern) STRING", "Formats a DATE with a java.time pattern.", fmtDate),
		def("PARSE_DATE", "PARSE_DATE(STRING formattedDate, STRING formatPattern) DATE", "Parses a string with a java.time pattern into a DATE.", parseDate),
		def("FORMAT_TIME", "FORMAT_TIME(TIME time, STRING formatPattern) STRING", "Formats a TIME with a java.time pattern.", fmtTime),
		def("PARSE_TIME", "PARSE_TIME(STRING formattedTime, STRING formatPattern) TIME", "Parses a string with a java.time pattern into a TIME.", parseTime),
		def("DATETOSTRING", "DATETOSTRING(INTEGER epochDays, STRING formatPattern) STRING", "Formats days since the epoch with a java.time pattern (deprecated: use FORMAT_DATE).",
			func(a []any) (any, error) {
				return c.formatMillis(int64(a[0].(int32))*millisPerDay, a[1].(string), "UTC")
			}),
		def("STRINGTODATE", "STRINGTODATE(STRING formattedDate, STRING formatPattern) INTEGER", "Parses a string into days since the epoch (deprecated: use PARSE_DATE).",
			func(a []any) (any, error) {
				ms, err := c.parseMillis(a[0].(string), a[1].(string), "UTC")
				return int32(floorDiv(ms, millisPerDay)), err
			}),
	}
}

func (c *timeCache) convertTZDef() ScalarDef {
	return ScalarDef{Name: "CONVERT_TZ", Category: CatDateTime,
		Description: "Converts a TIMESTAMP's wall-clock time from one time zone to another.",
		Overloads: []Overload{{Sig: "CONVERT_TZ(TIMESTAMP ts, STRING fromTimeZone, STRING toTimeZone) TIMESTAMP",
			Fn: call3(func(ts types.Timestamp, from, to string) (any, error) {
				fz, err := c.zone(from)
				if err != nil {
					return nil, err
				}
				tz, err := c.zone(to)
				if err != nil {
					return nil, err
				}
				t := time.UnixMilli(int64(ts))
				_, fo := t.In(fz).Zone()
				_, to2 := t.In(tz).Zone()
				return types.Timestamp(int64(ts) + int64(to2-fo)*1000), nil
			})}}}
}

// timeUnitMillis is java.util.concurrent.TimeUnit: the length of one unit
// in nanoseconds.
func timeUnitNanos(unit string) (int64, error) {
	switch strings.ToUpper(unit) {
	case "NANOSECONDS":
		return 1, nil
	case "MICROSECONDS":
		return 1e3, nil
	case "MILLISECONDS":
		return 1e6, nil
	case "SECONDS":
		return 1e9, nil
	case "MINUTES":
		return 60e9, nil
	case "HOURS":
		return 3600e9, nil
	case "DAYS":
		return 86400e9, nil
	}
	return 0, fmt.Errorf("unknown time unit %s", unit)
}

// convertUnit is TimeUnit.convert: n units in units of size `to`,
// truncated toward zero.
func convertUnit(unit string, n int64, to int64) (int64, error) {
	u, err := timeUnitNanos(unit)
	if err != nil {
		return 0, err
	}
	if u >= to {
		return n * (u / to), nil
	}
	return n / (to / u), nil
}

func arithmeticDefs() []ScalarDef {
	shiftDate := func(sign int64) Fn {
		return call3(func(unit string, n int32, d types.Date) (any, error) {
			days, err := convertUnit(unit, int64(n), 86400e9)
			return types.Date(int64(d) + sign*days), err
		})
	}
	shiftTS := func(sign int64) Fn {
		return call3(func(unit string, n int32, ts types.Timestamp) (any, error) {
			ms, err := convertUnit(unit, int64(n), 1e6)
			return types.Timestamp(int64(ts) + sign*ms), err
		})
	}
	shiftTime := func(sign int64) Fn {
		return call3(func(unit string, n int32, t types.Time) (any, error) {
			ms, err := convertUnit(unit, int64(n), 1e6)
			return types.Time(floorMod(int64(t)+sign*ms, millisPerDay)), err
		})
	}
	def := func(name, typ, desc string, fn Fn) ScalarDef {
		return ScalarDef{Name: name, Category: CatDateTime, Description: desc,
			Overloads: []Overload{{Sig: name + "(STRING unit, INTEGER interval, " + typ + " value) " + typ, Fn: fn}}}
	}
	return []ScalarDef{
		def("DATEADD", "DATE", "Adds an interval of a time unit (DAYS, HOURS, …) to a DATE.", shiftDate(1)),
		def("DATESUB", "DATE", "Subtracts an interval of a time unit from a DATE.", shiftDate(-1)),
		def("TIMESTAMPADD", "TIMESTAMP", "Adds an interval of a time unit to a TIMESTAMP.", shiftTS(1)),
		def("TIMESTAMPSUB", "TIMESTAMP", "Subtracts an interval of a time unit from a TIMESTAMP.", shiftTS(-1)),
		def("TIMEADD", "TIME", "Adds an interval of a time unit to a TIME, wrapping around midnight.", shiftTime(1)),
		def("TIMESUB", "TIME", "Subtracts an interval of a time unit from a TIME, wrapping around midnight.", shiftTime(-1)),
	}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }
