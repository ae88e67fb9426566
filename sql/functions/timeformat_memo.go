package functions

import "time"

// A pattern's text in UTC changes only at the boundaries of its finest
// field: "yyyy-MM-dd" once a day, "HH:mm" once a minute. Records come
// roughly in time order, so a FORMAT_TIMESTAMP of a GROUP BY (Nexmark's
// q15–q17) renders the same text for nearly every record. formatMemo is
// the last text a pattern rendered in UTC and the span of epoch
// milliseconds it holds for, boxed once: a record inside the span costs
// neither the rendering nor an allocation.

// formatMemo is one rendered text and the half-open span [lo, hi) of
// epoch milliseconds whose UTC text it is.
type formatMemo struct {
	lo, hi int64
	text   any // string
}

// memoPeriod is the span of milliseconds, aligned to the epoch, over which
// the pattern's UTC text is constant: that of its finest field, a day for a
// pattern of dates and zones alone; 0 when a field is finer than a second
// (the memo would never hit).
func memoPeriod(toks []timeToken) int64 {
	period := int64(millisPerDay)
	for _, tok := range toks {
		var p int64
		switch tok.letter {
		case 0, 'y', 'u', 'Y', 'M', 'L', 'd', 'D', 'E', 'e', 'c', 'G', 'z', 'v', 'V', 'O', 'Z', 'X', 'x':
			p = millisPerDay // a date's fields, or the zone's (fixed in UTC)
		case 'a', 'H', 'k', 'K', 'h':
			p = 3_600_000
		case 'm':
			p = 60_000
		case 's':
			p = 1_000
		default: // 'S', 'n', 'A' and any letter added later
			return 0
		}
		period = min(period, p)
	}
	return period
}

// formatUTC renders epoch millis ms in UTC, boxed, from the memo when ms
// falls in its span. The memo is shared by every caller of the pattern
// (the registry's timeCache), so it is replaced whole, never changed.
func (f *TimeFormat) formatUTC(ms int64) any {
	if f.period == 0 {
		return f.Format(time.UnixMilli(ms).UTC())
	}
	if m := f.memo.Load(); m != nil && ms >= m.lo && ms < m.hi {
		return m.text
	}
	lo := floorDivMillis(ms, f.period) * f.period
	m := &formatMemo{lo: lo, hi: lo + f.period, text: f.Format(time.UnixMilli(ms).UTC())}
	f.memo.Store(m)
	return m.text
}

// floorDivMillis is a / b rounded toward negative infinity (b > 0), so
// that spans before the epoch align as those after it.
func floorDivMillis(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}
