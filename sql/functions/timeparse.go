package functions

import (
	"fmt"
	"strings"
	"time"
)

// parsedTime collects the fields a pattern read; unset fields default to
// 1970-01-01T00:00:00.
type parsedTime struct {
	year, month, day, yearDay int
	hour, hour12, minute, sec int
	nanos                     int
	pm, hasAmPm, has12        bool
	loc                       *time.Location
}

// Parse reads s with the pattern. Times without a zone in the text are in
// loc. Text after the pattern is an error.
func (f *TimeFormat) Parse(s string, loc *time.Location) (time.Time, error) {
	t, rest, err := f.ParsePrefix(s, loc)
	if err == nil && rest != "" {
		return time.Time{}, f.parseError(s)
	}
	return t, err
}

// ParsePrefix is Parse that stops at the end of the pattern and returns
// the text after it.
func (f *TimeFormat) ParsePrefix(s string, loc *time.Location) (time.Time, string, error) {
	p := &parsedTime{year: 1970, month: 1, day: 1}
	rest := s
	for i, tok := range f.toks {
		var err error
		if tok.letter == 0 {
			if len(rest) < len(tok.lit) || !strings.EqualFold(rest[:len(tok.lit)], tok.lit) {
				return time.Time{}, "", f.parseError(s)
			}
			rest = rest[len(tok.lit):]
			continue
		}
		if rest, err = p.field(rest, tok, f.fixedWidth(i)); err != nil {
			return time.Time{}, "", f.parseError(s)
		}
	}
	t, err := p.time(loc)
	return t, rest, err
}

func (f *TimeFormat) parseError(s string) error {
	return fmt.Errorf("Text '%s' could not be parsed with pattern '%s'", s, f.pattern)
}

// fixedWidth reports whether token i is followed directly by a numeric
// field, in which case it must read exactly its width (yyyyMMdd).
func (f *TimeFormat) fixedWidth(i int) bool {
	if i+1 >= len(f.toks) {
		return false
	}
	next := f.toks[i+1]
	return next.letter != 0 && isNumericLetter(next)
}

func isNumericLetter(t timeToken) bool {
	switch t.letter {
	case 'M', 'L', 'E', 'e', 'c':
		return t.n <= 2 && t.letter != 'E'
	case 'a', 'z', 'V', 'v', 'O', 'X', 'x', 'Z', 'G':
		return false
	}
	return true
}

// number reads up to maxDigits digits (exactly width when fixed).
func scanDigits(s string, width int, fixed bool, maxDigits int) (int, int, string, error) {
	limit := maxDigits
	if fixed {
		limit = width
	}
	n, v := 0, 0
	for n < len(s) && n < limit && s[n] >= '0' && s[n] <= '9' {
		v = v*10 + int(s[n]-'0')
		n++
	}
	if n == 0 || fixed && n != width {
		return 0, 0, s, fmt.Errorf("expected %d digits", width)
	}
	return v, n, s[n:], nil
}

func (p *parsedTime) field(s string, tok timeToken, fixed bool) (string, error) {
	switch tok.letter {
	case 'M', 'L':
		if tok.n >= 3 {
			return p.monthName(s)
		}
	case 'E':
		return skipName(s, weekdayNames())
	case 'a':
		return p.ampm(s)
	case 'z', 'V', 'v':
		return p.zoneName(s)
	case 'X', 'x', 'Z', 'O':
		return p.zoneOffset(s)
	case 'G':
		return skipName(s, []string{"AD", "BC"})
	}
	return p.numeric(s, tok, fixed)
}

func (p *parsedTime) numeric(s string, tok timeToken, fixed bool) (string, error) {
	maxDigits := max(tok.n, 2)
	switch tok.letter {
	case 'y', 'u', 'Y':
		maxDigits = 9
	case 'S', 'n':
		maxDigits = 9
	case 'A', 'D':
		maxDigits = 9
	}
	v, digits, rest, err := scanDigits(s, tok.n, fixed, maxDigits)
	if err != nil {
		return s, err
	}
	p.set(tok, v, digits)
	return rest, nil
}

func (p *parsedTime) set(tok timeToken, v, digits int) {
	switch tok.letter {
	case 'y', 'u', 'Y':
		if tok.n == 2 && digits == 2 {
			v += 2000
		}
		p.year = v
	case 'M', 'L':
		p.month = v
	case 'd':
		p.day = v
	case 'D':
		p.yearDay = v
	case 'H', 'k':
		p.hour = v % 24
	case 'h', 'K':
		p.hour12, p.has12 = v%12, true
	case 'm':
		p.minute = v
	case 's':
		p.sec = v
	case 'S':
		for i := digits; i < 9; i++ {
			v *= 10
		}
		p.nanos = v
	case 'n':
		p.nanos = v
	case 'A':
		p.hour, p.minute, p.sec, p.nanos = v/3600000, v/60000%60, v/1000%60, v%1000*1e6
	}
}

func weekdayNames() []string {
	return []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
		"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}
}

// skipName consumes one of names (longest first), case-insensitively.
func skipName(s string, names []string) (string, error) {
	for _, n := range names {
		if len(s) >= len(n) && strings.EqualFold(s[:len(n)], n) {
			return s[len(n):], nil
		}
	}
	return s, fmt.Errorf("expected a name")
}

func (p *parsedTime) monthName(s string) (string, error) {
	for m := time.January; m <= time.December; m++ {
		for _, n := range []string{m.String(), m.String()[:3]} {
			if len(s) >= len(n) && strings.EqualFold(s[:len(n)], n) {
				p.month = int(m)
				return s[len(n):], nil
			}
		}
	}
	return s, fmt.Errorf("expected a month name")
}

func (p *parsedTime) ampm(s string) (string, error) {
	if len(s) < 2 {
		return s, fmt.Errorf("expected AM or PM")
	}
	switch strings.ToUpper(s[:2]) {
	case "AM":
		p.pm = false
	case "PM":
		p.pm = true
	default:
		return s, fmt.Errorf("expected AM or PM")
	}
	p.hasAmPm = true
	return s[2:], nil
}

// zoneAbbreviation maps the zone names java.time's 'z' parser knows to
// the region they stand for: like Java, "PST" in May means Pacific
// daylight time, because the region's rules apply.
func zoneAbbreviation(name string) (string, bool) {
	regions := map[string]string{
		"UTC": "UTC", "GMT": "UTC", "UT": "UTC", "Z": "UTC",
		"PST": "America/Los_Angeles", "PDT": "America/Los_Angeles", "PT": "America/Los_Angeles",
		"MST": "America/Denver", "MDT": "America/Denver", "MT": "America/Denver",
		"CST": "America/Chicago", "CDT": "America/Chicago", "CT": "America/Chicago",
		"EST": "America/New_York", "EDT": "America/New_York", "ET": "America/New_York",
		"AKST": "America/Anchorage", "AKDT": "America/Anchorage", "HST": "Pacific/Honolulu",
		"BST": "Europe/London", "CET": "Europe/Paris", "CEST": "Europe/Paris",
		"EET": "Europe/Helsinki", "EEST": "Europe/Helsinki", "JST": "Asia/Tokyo",
		"IST": "Asia/Kolkata", "AEST": "Australia/Sydney", "AEDT": "Australia/Sydney",
	}
	r, ok := regions[strings.ToUpper(name)]
	return r, ok
}

func (p *parsedTime) zoneName(s string) (string, error) {
	n := 0
	for n < len(s) && (isWordByte(s[n]) || strings.ContainsRune("/+-", rune(s[n]))) {
		n++
	}
	name := s[:n]
	if region, ok := zoneAbbreviation(name); ok {
		name = region
	}
	loc, err := ParseZone(name)
	if err != nil {
		return s, err
	}
	p.loc = loc
	return s[n:], nil
}

// zoneOffset reads Z or ±HH[[:]MM], optionally after GMT/UTC.
func (p *parsedTime) zoneOffset(s string) (string, error) {
	for _, pre := range []string{"GMT", "UTC"} {
		if len(s) >= 3 && strings.EqualFold(s[:3], pre) {
			s = s[3:]
			if s == "" || s[0] != '+' && s[0] != '-' {
				p.loc = time.UTC
				return s, nil
			}
		}
	}
	if s != "" && (s[0] == 'Z' || s[0] == 'z') {
		p.loc = time.UTC
		return s[1:], nil
	}
	off, n, err := parseOffset(s)
	if err != nil {
		return s, err
	}
	p.loc = time.FixedZone("", off)
	return s[n:], nil
}

// parseOffset reads ±HH, ±HHMM or ±HH:MM and returns seconds east of UTC
// and the length read.
func parseOffset(s string) (int, int, error) {
	if len(s) < 3 || s[0] != '+' && s[0] != '-' {
		return 0, 0, fmt.Errorf("expected an offset")
	}
	h, _, _, err := scanDigits(s[1:], 2, true, 2)
	if err != nil {
		return 0, 0, err
	}
	n, m := 3, 0
	rest := s[3:]
	if strings.HasPrefix(rest, ":") {
		rest, n = rest[1:], n+1
	}
	if mm, _, _, err := scanDigits(rest, 2, true, 2); err == nil {
		m, n = mm, n+2
	} else if n == 4 {
		return 0, 0, err
	}
	off := h*3600 + m*60
	if s[0] == '-' {
		off = -off
	}
	return off, n, nil
}

func (p *parsedTime) time(loc *time.Location) (time.Time, error) {
	if p.loc != nil {
		loc = p.loc
	}
	hour := p.hour
	if p.has12 {
		hour = p.hour12
		if p.pm {
			hour += 12
		}
	}
	if p.month < 1 || p.month > 12 || p.day < 1 || p.day > 31 || p.minute > 59 || p.sec > 59 {
		return time.Time{}, fmt.Errorf("invalid date or time field")
	}
	t := time.Date(p.year, time.Month(p.month), p.day, hour, p.minute, p.sec, p.nanos, loc)
	if p.yearDay > 0 {
		t = time.Date(p.year, 1, p.yearDay, hour, p.minute, p.sec, p.nanos, loc)
	} else if t.Day() != p.day {
		return time.Time{}, fmt.Errorf("invalid date %04d-%02d-%02d", p.year, p.month, p.day)
	}
	return t, nil
}

// ParseZone resolves a zone the way java.time.ZoneId.of does: region
// names ("America/Los_Angeles"), "UTC"/"GMT"/"Z", and offsets ("+02:00",
// "+0200", "UTC+2").
func ParseZone(name string) (*time.Location, error) {
	switch up := strings.ToUpper(name); {
	case up == "Z" || up == "UTC" || up == "GMT" || up == "UT":
		return time.UTC, nil
	case strings.HasPrefix(name, "+") || strings.HasPrefix(name, "-"):
		if off, n, err := parseOffset(name); err == nil && n == len(name) {
			return time.FixedZone(name, off), nil
		}
	}
	if name == "" || strings.EqualFold(name, "local") {
		return nil, fmt.Errorf("Unknown time-zone ID: %s", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("Unknown time-zone ID: %s", name)
	}
	return loc, nil
}
