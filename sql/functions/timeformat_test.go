package functions

import (
	"testing"
	"time"
)

func TestTimeFormatRoundTrip(t *testing.T) {
	ts := time.Date(2018, 5, 11, 21, 58, 33, 123_000_000, time.UTC)
	cases := []struct{ pattern, text string }{
		{"yyyy-MM-dd'T'HH:mm:ss.SSSX", "2018-05-11T21:58:33.123Z"},
		{"yyyy-MM-dd HH:mm:ss", "2018-05-11 21:58:33"},
		{"yyyyMMddHHmmss", "20180511215833"},
		{"dd/MM/yy hh:mm a", "11/05/18 09:58 PM"},
		{"EEE, d MMM yyyy", "Fri, 11 May 2018"},
		{"EEEE MMMM dd", "Friday May 11"},
		{"'quoted ''text''' yyyy", "quoted 'text' 2018"},
		{"D", "131"},
		{"HH:mm:ss.SSSSSS xxx", "21:58:33.123000 +00:00"},
	}
	for _, c := range cases {
		f, err := CompileTimeFormat(c.pattern)
		if err != nil {
			t.Fatalf("%s: %v", c.pattern, err)
		}
		if got := f.Format(ts); got != c.text {
			t.Errorf("Format(%q) = %q, want %q", c.pattern, got, c.text)
		}
	}
}

func TestTimeFormatParse(t *testing.T) {
	cases := []struct {
		pattern, text, zone string
		want                int64 // epoch millis; -1 for an error
	}{
		{"yyyy-MM-dd'T'HH:mm:ssX", "2018-05-11T21:58:33Z", "UTC", 1526075913000},
		{"yyyy-MM-dd'T'HH:mm:ssX", "2018-05-11T21:58:33+0200", "UTC", 1526068713000},
		{"yyyy-MM-dd'T'HH:mm:ssXXX", "2018-05-11T21:58:33-01:30", "UTC", 1526081313000},
		{"yyyy-MM-dd HH:mm:ss", "2018-05-11 21:58:33", "America/Los_Angeles", 1526101113000},
		{"yyyy-MM-dd HH:mm:ss zzz", "2018-05-11 21:58:33 PST", "UTC", 1526101113000},
		{"yyyy-MM-dd HH:mm:ss VV", "2018-05-11 21:58:33 Europe/Paris", "UTC", 1526068713000},
		{"yyyy-MM-dd", "2018-05-11", "UTC", 1525996800000},
		{"MMM yyyy", "may 2018", "UTC", 1525132800000},
		{"hh:mm a", "12:30 am", "UTC", 1800000},
		{"HH:mm:ss.S", "00:00:01.5", "UTC", 1500},
		{"yyyy-MM-dd", "2018-02-30", "UTC", -1},
		{"yyyy-MM-dd", "2018-05-11 extra", "UTC", -1},
		{"yyyy-MM-dd", "11-05-2018", "UTC", -1},
	}
	for _, c := range cases {
		f, err := CompileTimeFormat(c.pattern)
		if err != nil {
			t.Fatalf("%s: %v", c.pattern, err)
		}
		loc, err := ParseZone(c.zone)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.Parse(c.text, loc)
		if c.want < 0 {
			if err == nil {
				t.Errorf("Parse(%q, %q) = %v, want an error", c.pattern, c.text, got)
			}
			continue
		}
		if err != nil || got.UnixMilli() != c.want {
			t.Errorf("Parse(%q, %q) = %d (%v), want %d", c.pattern, c.text, got.UnixMilli(), err, c.want)
		}
	}
}

func TestCompileTimeFormatErrors(t *testing.T) {
	for _, p := range []string{"yyyy-bb", "'unterminated", "yyyy-MM-dd P", "QQ", "ww"} {
		if _, err := CompileTimeFormat(p); err == nil {
			t.Errorf("CompileTimeFormat(%q): no error", p)
		}
	}
}

func TestParseZone(t *testing.T) {
	cases := map[string]int{"UTC": 0, "Z": 0, "+02:00": 7200, "-0530": -19800, "+05": 18000}
	for name, off := range cases {
		loc, err := ParseZone(name)
		if err != nil {
			t.Errorf("ParseZone(%q): %v", name, err)
			continue
		}
		if _, got := time.Date(2020, 1, 1, 0, 0, 0, 0, loc).Zone(); got != off {
			t.Errorf("ParseZone(%q) offset %d, want %d", name, got, off)
		}
	}
	for _, bad := range []string{"", "Nowhere/Land", "+2"} {
		if _, err := ParseZone(bad); err == nil {
			t.Errorf("ParseZone(%q): no error", bad)
		}
	}
}
