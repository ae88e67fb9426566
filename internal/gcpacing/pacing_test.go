package gcpacing

import (
	"errors"
	"runtime/debug"
	"strings"
	"testing"
)

func TestParsePercent(t *testing.T) {
	for in, want := range map[string]int{"400": 400, " 100 ": 100, "1": 1, "off": Off, "OFF": Off, "-1": Off} {
		if got, err := ParsePercent(in); err != nil || got != want {
			t.Errorf("ParsePercent(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-2", "4e2", "400%", "fast"} {
		if _, err := ParsePercent(in); err == nil || !strings.Contains(err.Error(), "is not a percentage of at least 1, or off") {
			t.Errorf("ParsePercent(%q) error %v, want a refusal", in, err)
		}
	}
}

func TestParseLimit(t *testing.T) {
	type lim struct {
		bytes int64
		share float64
	}
	for in, want := range map[string]lim{
		"2147483648": {2147483648, 0},
		"2GB":        {2e9, 0},
		"2 gb":       {2e9, 0},
		"2GiB":       {2 << 30, 0},
		"1.5GiB":     {3 << 29, 0},
		"1536MiB":    {1536 << 20, 0},
		"512KB":      {512e3, 0},
		"100B":       {100, 0},
		"1TiB":       {1 << 40, 0},
		"off":        {NoLimit, 0},
		"75%":        {0, 75},
		"100%":       {0, 100},
		" 12.5 % ":   {0, 12.5},
	} {
		b, s, err := parseLimit(in)
		if err != nil || b != want.bytes || s != want.share {
			t.Errorf("parseLimit(%q) = %d, %v, %v; want %d, %v", in, b, s, err, want.bytes, want.share)
		}
	}
	for _, in := range []string{"", "0", "-1GB", "2XB", "GB", "0%", "101%", "1e9", "0x10", "9EiB", "99999999TiB", "lots"} {
		if err := CheckLimit(in); err == nil || !strings.Contains(err.Error(), "is not a size") {
			t.Errorf("CheckLimit(%q) error %v, want a refusal", in, err)
		}
	}
}

func machine(bytes int64) func() (Memory, error) {
	return func() (Memory, error) { return Memory{Bytes: bytes, From: "MemTotal"}, nil }
}

func noMachine() (Memory, error) { return Memory{}, errors.New("reading /proc/meminfo: no such file") }

// TestResolve: an explicit setting wins over the environment, which wins
// over the defaults; the default percent is Go's without a limit in
// force; off with no limit, bad values and a share of an unknown memory
// are errors naming where the value came from.
func TestResolve(t *testing.T) {
	unset := Given{}
	set := func(v, from string) Given { return Given{Value: v, From: from, Set: true} }
	goDefaults := Runtime{Percent: 100, Limit: NoLimit}
	env := Runtime{Percent: 250, Limit: 3 << 30, PercentEnv: true, LimitEnv: true}
	for _, c := range []struct {
		name           string
		percent, limit Given
		rt             Runtime
		mem            func() (Memory, error)
		want           Pacing
	}{
		{"defaults", unset, unset, goDefaults, machine(8 << 30),
			Pacing{400, "default", 6 << 30, "default: 75% of MemTotal 8.0GiB"}},
		{"environment wins over defaults", unset, unset, env, machine(8 << 30),
			Pacing{250, "environment GOGC", 3 << 30, "environment GOMEMLIMIT"}},
		{"GOGC only", unset, unset, Runtime{Percent: 50, Limit: NoLimit, PercentEnv: true}, machine(8 << 30),
			Pacing{50, "environment GOGC", 6 << 30, "default: 75% of MemTotal 8.0GiB"}},
		{"GOMEMLIMIT=off: Go's percent", unset, unset, Runtime{Percent: 100, Limit: NoLimit, LimitEnv: true}, machine(8 << 30),
			Pacing{100, "default (Go's, as no memory limit is in force)", NoLimit, "environment GOMEMLIMIT"}},
		{"settings win over environment", set("200", "--gc-percent"), set("1GiB", "config file a:2: sqlstream.memory.limit"), env, machine(8 << 30),
			Pacing{200, "--gc-percent", 1 << 30, "config file a:2: sqlstream.memory.limit"}},
		{"a share", unset, set("50%", "--memory-limit"), goDefaults, machine(8 << 30),
			Pacing{400, "default", 4 << 30, "--memory-limit: 50% of MemTotal 8.0GiB"}},
		{"limit off: Go's percent", unset, set("off", "--memory-limit"), goDefaults, machine(8 << 30),
			Pacing{100, "default (Go's, as no memory limit is in force)", NoLimit, "--memory-limit"}},
		{"percent off with a limit", set("off", "--gc-percent"), unset, goDefaults, machine(8 << 30),
			Pacing{Off, "--gc-percent", 6 << 30, "default: 75% of MemTotal 8.0GiB"}},
		{"machine unknown: no default limit", unset, unset, goDefaults, noMachine,
			Pacing{100, "default (Go's, as no memory limit is in force)", NoLimit, "default (no limit: reading /proc/meminfo: no such file)"}},
		{"machine unknown, a size given", unset, set("2GB", "--memory-limit"), goDefaults, noMachine,
			Pacing{400, "default", 2e9, "--memory-limit"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Resolve(c.percent, c.limit, c.rt, c.mem)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("Resolve = %+v\nwant       %+v", got, c.want)
			}
		})
	}
	for _, c := range []struct {
		name           string
		percent, limit Given
		rt             Runtime
		mem            func() (Memory, error)
		want           string
	}{
		{"bad percent", set("fast", "--gc-percent"), unset, goDefaults, machine(8 << 30), `--gc-percent: "fast" is not a percentage`},
		{"bad limit", unset, set("2XB", "config file a:3: sqlstream.memory.limit"), goDefaults, machine(8 << 30),
			`config file a:3: sqlstream.memory.limit: "2XB" is not a size`},
		{"share of unknown memory", unset, set("50%", "--memory-limit"), goDefaults, noMachine,
			`--memory-limit: "50%" is a share of the machine's memory, which could not be read (reading /proc/meminfo: no such file): give a size such as 2GiB`},
		{"off without a limit", set("off", "--gc-percent"), set("off", "--memory-limit"), goDefaults, machine(8 << 30),
			"sqlstream.gc.percent=off (from --gc-percent) with no memory limit (sqlstream.memory.limit from --memory-limit) would let the heap grow without bound"},
		{"GOGC=off without a limit", unset, unset, Runtime{Percent: Off, Limit: NoLimit, PercentEnv: true}, noMachine,
			"sqlstream.gc.percent=off (from environment GOGC) with no memory limit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Resolve(c.percent, c.limit, c.rt, c.mem)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Resolve error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestApply: the process runs with the pacing after Apply, and
// CurrentRuntime reads it back (the test restores Go's pacing).
func TestApply(t *testing.T) {
	before := CurrentRuntime(func(string) (string, bool) { return "", false })
	defer Pacing{Percent: before.Percent, Limit: before.Limit}.Apply()
	Pacing{Percent: 321, Limit: 5 << 30}.Apply()
	got := CurrentRuntime(func(name string) (string, bool) { return "x", name == "GOGC" })
	if want := (Runtime{Percent: 321, Limit: 5 << 30, PercentEnv: true}); got != want {
		t.Errorf("CurrentRuntime after Apply = %+v, want %+v", got, want)
	}
	if debug.SetGCPercent(321) != 321 {
		t.Error("SetGCPercent did not return the applied percent")
	}
}

func TestTexts(t *testing.T) {
	p := Pacing{Percent: Off, Limit: NoLimit}
	if p.PercentText() != "off" || p.LimitText() != "off" || FormatBytes(NoLimit) != "off" {
		t.Errorf("off texts: %q %q %q", p.PercentText(), p.LimitText(), FormatBytes(NoLimit))
	}
	p = Pacing{Percent: 400, Limit: 3 << 29}
	if p.PercentText() != "400" || p.LimitText() != "1610612736" || FormatBytes(p.Limit) != "1.5GiB" || FormatBytes(512) != "512B" {
		t.Errorf("texts: %q %q %q %q", p.PercentText(), p.LimitText(), FormatBytes(p.Limit), FormatBytes(512))
	}
	for _, v := range []string{p.PercentText(), p.LimitText()} {
		if CheckPercent(v) != nil && CheckLimit(v) != nil {
			t.Errorf("%q is refused by both checks: a shown value must parse back", v)
		}
	}
}
