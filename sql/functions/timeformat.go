package functions

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	_ "time/tzdata" // zone names must resolve on hosts without tzdata
)

// TimeFormat is a compiled java.time.format.DateTimeFormatter pattern
// ("yyyy-MM-dd'T'HH:mm:ss.SSSX"), the pattern language ksqlDB's date and
// time functions and the timestamp_format property use. Parsing is case
// insensitive and fills missing fields from 1970-01-01T00:00:00.
type TimeFormat struct {
	pattern string
	toks    []timeToken
	// period is memoPeriod(toks); memo the last text rendered in UTC
	// (formatUTC, timeformat_memo.go).
	period int64
	memo   atomic.Pointer[formatMemo]
}

// timeToken is a run of one pattern letter (letter != 0) or literal text.
type timeToken struct {
	letter byte
	n      int
	lit    string
}

// CompileTimeFormat compiles a DateTimeFormatter pattern.
func CompileTimeFormat(pattern string) (*TimeFormat, error) {
	var toks []timeToken
	for i := 0; i < len(pattern); {
		c := pattern[i]
		switch {
		case c == '\'':
			lit, next, err := quotedLiteral(pattern, i)
			if err != nil {
				return nil, err
			}
			toks, i = append(toks, timeToken{lit: lit}), next
		case c == '[' || c == ']':
			i++ // optional sections are treated as always present
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(pattern) && pattern[j] == c {
				j++
			}
			if !strings.ContainsRune("GuyYDMLdEecahKkHmsSAnVvzOXxZ", rune(c)) {
				return nil, fmt.Errorf("Unknown pattern letter: %c", c)
			}
			toks, i = append(toks, timeToken{letter: c, n: j - i}), j
		default:
			toks, i = append(toks, timeToken{lit: string(c)}), i+1
		}
	}
	return &TimeFormat{pattern: pattern, toks: toks, period: memoPeriod(toks)}, nil
}

// quotedLiteral reads a quoted literal starting at i; two quotes in a
// row stand for one quote.
func quotedLiteral(p string, i int) (string, int, error) {
	if strings.HasPrefix(p[i:], "''") {
		return "'", i + 2, nil
	}
	var b strings.Builder
	for j := i + 1; j < len(p); j++ {
		if p[j] != '\'' {
			b.WriteByte(p[j])
			continue
		}
		if j+1 < len(p) && p[j+1] == '\'' {
			b.WriteByte('\'')
			j++
			continue
		}
		return b.String(), j + 1, nil
	}
	return "", 0, fmt.Errorf("Pattern ends with an incomplete string literal: %s", p)
}

// Format renders t (in its location) with the pattern.
func (f *TimeFormat) Format(t time.Time) string {
	var b strings.Builder
	for _, tok := range f.toks {
		if tok.letter == 0 {
			b.WriteString(tok.lit)
			continue
		}
		b.WriteString(formatField(t, tok))
	}
	return b.String()
}

func padInt(v, n int) string {
	s := strconv.Itoa(v)
	if v < 0 {
		return "-" + padInt(-v, n)
	}
	if len(s) < n {
		s = strings.Repeat("0", n-len(s)) + s
	}
	return s
}

func formatField(t time.Time, tok timeToken) string {
	switch tok.letter {
	case 'y', 'u', 'Y':
		if tok.n == 2 {
			return padInt(t.Year()%100, 2)
		}
		return padInt(t.Year(), tok.n)
	case 'M', 'L':
		return formatText(int(t.Month()), tok.n, t.Month().String())
	case 'd':
		return padInt(t.Day(), tok.n)
	case 'D':
		return padInt(t.YearDay(), tok.n)
	case 'E', 'e', 'c':
		return formatText(int(t.Weekday()+6)%7+1, tok.n, t.Weekday().String())
	case 'a':
		if t.Hour() < 12 {
			return "AM"
		}
		return "PM"
	}
	return formatClockField(t, tok)
}

// formatText renders a month or weekday: numbers for n <= 2, the short
// name for n == 3, the full name otherwise.
func formatText(num, n int, name string) string {
	switch {
	case n <= 2:
		return padInt(num, n)
	case n == 3:
		return name[:3]
	}
	return name
}

func formatClockField(t time.Time, tok timeToken) string {
	switch tok.letter {
	case 'H':
		return padInt(t.Hour(), tok.n)
	case 'k':
		return padInt((t.Hour()+23)%24+1, tok.n)
	case 'K':
		return padInt(t.Hour()%12, tok.n)
	case 'h':
		return padInt((t.Hour()+11)%12+1, tok.n)
	case 'm':
		return padInt(t.Minute(), tok.n)
	case 's':
		return padInt(t.Second(), tok.n)
	case 'S':
		return padInt(t.Nanosecond(), 9)[:min(tok.n, 9)] + strings.Repeat("0", max(0, tok.n-9))
	case 'n':
		return padInt(t.Nanosecond(), tok.n)
	case 'A':
		return padInt((t.Hour()*3600+t.Minute()*60+t.Second())*1000+t.Nanosecond()/1e6, tok.n)
	case 'G':
		return "AD"
	}
	return formatZone(t, tok)
}

func formatZone(t time.Time, tok timeToken) string {
	name, off := t.Zone()
	switch tok.letter {
	case 'z', 'v':
		if tok.n >= 4 {
			return t.Location().String()
		}
		return name
	case 'V':
		return t.Location().String()
	case 'O':
		if off == 0 {
			return "GMT"
		}
		return "GMT" + offsetText(off, tok.n == 4, false)
	case 'Z':
		switch {
		case tok.n == 4 && off == 0:
			return "GMT"
		case tok.n == 4:
			return "GMT" + offsetText(off, true, true)
		case tok.n == 5:
			if off == 0 {
				return "Z"
			}
			return offsetText(off, true, true)
		}
		return offsetText(off, true, false)
	case 'X':
		if off == 0 {
			return "Z"
		}
	}
	return offsetXText(off, tok.n)
}

// offsetXText is the X/x pattern: +HH[MM] (n=1), +HHMM (2), +HH:MM (3).
func offsetXText(off, n int) string {
	switch {
	case n == 1 && off%3600 == 0:
		return offsetText(off, false, false)
	case n == 1 || n == 2 || n == 4:
		return offsetText(off, true, false)
	}
	return offsetText(off, true, true)
}

// offsetText renders a UTC offset in seconds as +HH, +HHMM or +HH:MM.
func offsetText(off int, minutes, colon bool) string {
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	s := sign + padInt(off/3600, 2)
	if !minutes {
		return s
	}
	if colon {
		s += ":"
	}
	return s + padInt(off/60%60, 2)
}
