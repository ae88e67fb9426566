package functions

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// memoPatterns covers each period: a day (dates, zones, literals), an
// hour, a minute, a second, and none (fractions of a second).
var memoPatterns = []string{
	"yyyy-MM-dd", "YYYY-e EEE", "D G 'day' XXX Z", "yy-MMMM-dd HH", "hh a", "K k",
	"HH:mm", "yyyy-MM-dd'T'HH:mm:ss", "ss", "HH:mm:ss.SSS", "A",
}

// TestFormatUTCMatchesFormat renders millis in runs (in time order, as
// records mostly come, with steps across the spans' boundaries, before
// and after the epoch, and jumps back) through the memo and directly:
// the texts must be the same.
func TestFormatUTCMatchesFormat(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	steps := []int64{1, 999, 1000, 59_999, 60_000, 3_599_999, 3_600_000, millisPerDay - 1, millisPerDay}
	for _, p := range memoPatterns {
		f, err := CompileTimeFormat(p)
		if err != nil {
			t.Fatal(err)
		}
		for run := 0; run < 200; run++ {
			ms := rng.Int64N(4*365*millisPerDay) - 2*365*millisPerDay // 1968 to 1972
			if run%3 == 0 {
				ms = floorDivMillis(ms, millisPerDay)*millisPerDay - 1 // a day's last milli
			}
			for i := 0; i < 20; i++ {
				want := f.Format(time.UnixMilli(ms).UTC())
				if got := f.formatUTC(ms).(string); got != want {
					t.Fatalf("%q at %d (%s): memo %q, want %q", p, ms, time.UnixMilli(ms).UTC(), got, want)
				}
				ms += steps[rng.IntN(len(steps))]
				if rng.IntN(8) == 0 {
					ms -= steps[rng.IntN(len(steps))] * 2
				}
			}
		}
	}
}

func TestMemoPeriod(t *testing.T) {
	for p, want := range map[string]int64{
		"yyyy-MM-dd": millisPerDay, "'T'": millisPerDay, "EEE XXX": millisPerDay, "HH:mm": 60_000,
		"hh a": 3_600_000, "HH:mm:ss": 1_000, "ss.SSS": 0, "n": 0, "A": 0,
	} {
		f, err := CompileTimeFormat(p)
		if err != nil {
			t.Fatal(err)
		}
		if f.period != want {
			t.Errorf("%q: period %d, want %d", p, f.period, want)
		}
	}
}

// TestFormatTimestampSameDayAllocatesNothing: FORMAT_TIMESTAMP of a day
// in UTC, called again within the day, returns the boxed text it
// rendered first (Nexmark q16's and q17's GROUP BY key).
func TestFormatTimestampSameDayAllocatesNothing(t *testing.T) {
	d, ok := NewRegistry().Lookup("FORMAT_TIMESTAMP")
	if !ok {
		t.Fatal("FORMAT_TIMESTAMP not registered")
	}
	fn := d.Overloads[0].Fn
	ms := int64(1_700_000_000_000)
	args := []any{nil, "yyyy-MM-dd"}
	call := func() any {
		ms += 1_000
		args[0] = ms // a boxed int64 is what millisOf reads; the box is the test's
		v, err := fn(args)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := call(); v != "2023-11-14" {
		t.Fatalf("got %v", v)
	}
	boxed := make([]any, 101)
	for i := range boxed {
		boxed[i] = ms + int64(i+1)*1_000
	}
	i := 0
	n := testing.AllocsPerRun(100, func() {
		args[0] = boxed[i]
		i++
		if v, err := fn(args); err != nil || v != "2023-11-14" {
			t.Fatalf("got %v, %v", v, err)
		}
	})
	if n != 0 {
		t.Errorf("%v allocations a call within the day, want 0", n)
	}
	// Outside UTC the text is rendered each time, as before.
	if v, err := fn([]any{ms, "yyyy-MM-dd HH", "America/New_York"}); err != nil || v != "2023-11-14 17" {
		t.Errorf("New York: %v, %v", v, err)
	}
}

// TestFormatUTCConcurrent: callers of one pattern share its memo (the
// registry's), each replacing it whole; under -race every text is right.
func TestFormatUTCConcurrent(t *testing.T) {
	f, err := CompileTimeFormat("yyyy-MM-dd HH:mm")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ms := int64(g) * 7_777_777
			for range 2000 {
				ms += 13_001
				if got, want := f.formatUTC(ms).(string), f.Format(time.UnixMilli(ms).UTC()); got != want {
					t.Errorf("at %d: %q, want %q", ms, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}
