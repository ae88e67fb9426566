package gcpacing

import (
	"fmt"
	"math"
	"runtime/debug"
	"strconv"
	"strings"
)

// The settings' names, as the server's configuration spells them.
const (
	PercentSetting = "sqlstream.gc.percent"
	LimitSetting   = "sqlstream.memory.limit"
)

// Defaults: DefaultPercent applies with a memory limit in force,
// GoPercent (Go's own default) without one; DefaultLimit is a share of
// the machine's memory.
const (
	DefaultPercent = 400
	GoPercent      = 100
	DefaultLimit   = "75%"
)

// Off is Percent's value when the collector runs only to keep the heap
// under the limit (GOGC=off), and NoLimit is Limit's without a limit
// (GOMEMLIMIT=off): Go's own values for them.
const (
	Off     = -1
	NoLimit = math.MaxInt64
)

// Given is a setting as the configuration gave it: Set is false when
// neither a flag nor the config file set it; From names where it was set
// ("--gc-percent", "config file x:3: sqlstream.gc.percent").
type Given struct {
	Value string
	From  string
	Set   bool
}

// Runtime is the pacing Go's runtime started with: GOGC and GOMEMLIMIT
// as it read them (Percent and Limit), and whether each was in the
// environment at all.
type Runtime struct {
	Percent              int
	Limit                int64
	PercentEnv, LimitEnv bool
}

// CurrentRuntime reads the process's pacing before Apply changes it.
func CurrentRuntime(lookupEnv func(string) (string, bool)) Runtime {
	percent := debug.SetGCPercent(GoPercent)
	debug.SetGCPercent(percent)
	_, pe := lookupEnv("GOGC")
	_, le := lookupEnv("GOMEMLIMIT")
	return Runtime{Percent: percent, Limit: debug.SetMemoryLimit(-1), PercentEnv: pe, LimitEnv: le}
}

// Pacing is the resolved pacing: the GC's target percent (Off: none) and
// the soft memory limit in bytes (NoLimit: none), each with where it
// came from, for the start line.
type Pacing struct {
	Percent     int
	PercentFrom string
	Limit       int64
	LimitFrom   string
}

// Apply sets the process's pacing.
func (p Pacing) Apply() {
	debug.SetMemoryLimit(p.Limit)
	debug.SetGCPercent(p.Percent)
}

// PercentText is Percent as the setting spells it: a number, or off.
func (p Pacing) PercentText() string {
	if p.Percent == Off {
		return "off"
	}
	return strconv.Itoa(p.Percent)
}

// LimitText is Limit in bytes as the setting spells it (a number, or
// off), exactly: what SHOW PROPERTIES shows.
func (p Pacing) LimitText() string {
	if p.Limit == NoLimit {
		return "off"
	}
	return strconv.FormatInt(p.Limit, 10)
}

// Resolve turns the two settings into the pacing: an explicit setting
// wins over the environment (GOGC, GOMEMLIMIT, as rt read them), which
// wins over the defaults. mem is the machine's memory for a limit given
// as a share (DefaultLimit included); its error matters only then. A bad
// value, or a share without the machine's memory, is an error naming the
// setting.
func Resolve(percent, limit Given, rt Runtime, mem func() (Memory, error)) (Pacing, error) {
	var p Pacing
	switch {
	case limit.Set:
		l, err := resolveLimit(limit.Value, mem)
		if err != nil {
			return Pacing{}, fmt.Errorf("%s: %w", limit.From, err)
		}
		p.Limit, p.LimitFrom = l.bytes, limit.From+l.from
	case rt.LimitEnv:
		p.Limit, p.LimitFrom = rt.Limit, "environment GOMEMLIMIT"
	default:
		m, err := mem()
		if err != nil {
			// The default only: without the machine's memory there is no
			// limit, and so no reason to leave Go's percent.
			p.Limit, p.LimitFrom = NoLimit, "default (no limit: "+err.Error()+")"
			break
		}
		l, err := resolveLimit(DefaultLimit, func() (Memory, error) { return m, nil })
		if err != nil {
			return Pacing{}, err // DefaultLimit parses: a bug
		}
		p.Limit, p.LimitFrom = l.bytes, "default"+l.from
	}
	switch {
	case percent.Set:
		n, err := ParsePercent(percent.Value)
		if err != nil {
			return Pacing{}, fmt.Errorf("%s: %w", percent.From, err)
		}
		p.Percent, p.PercentFrom = n, percent.From
	case rt.PercentEnv:
		p.Percent, p.PercentFrom = rt.Percent, "environment GOGC"
	case p.Limit == NoLimit:
		p.Percent, p.PercentFrom = GoPercent, "default (Go's, as no memory limit is in force)"
	default:
		p.Percent, p.PercentFrom = DefaultPercent, "default"
	}
	if p.Percent == Off && p.Limit == NoLimit {
		return Pacing{}, fmt.Errorf("%s=off (from %s) with no memory limit (%s from %s) would let the heap grow without bound: set %s to a size, or the percent to a number",
			PercentSetting, p.PercentFrom, LimitSetting, p.LimitFrom, LimitSetting)
	}
	return p, nil
}

// ParsePercent parses sqlstream.gc.percent: a whole number of at least 1
// (the heap may grow by that percentage of its live size before the next
// collection, GOGC's meaning), or off (also -1, as debug.SetGCPercent
// takes it): collections only as the heap nears the memory limit.
func ParsePercent(v string) (int, error) {
	s := strings.TrimSpace(v)
	if strings.EqualFold(s, "off") || s == "-1" {
		return Off, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not a percentage of at least 1, or off", v)
	}
	return n, nil
}

// CheckPercent validates a sqlstream.gc.percent value.
func CheckPercent(v string) error {
	_, err := ParsePercent(v)
	return err
}

// CheckLimit validates a sqlstream.memory.limit value without reading
// the machine's memory.
func CheckLimit(v string) error {
	_, _, err := parseLimit(v)
	return err
}

// limitValue is a resolved limit and, for a share, what it is a share of.
type limitValue struct {
	bytes int64
	from  string
}

func resolveLimit(v string, mem func() (Memory, error)) (limitValue, error) {
	bytes, share, err := parseLimit(v)
	if err != nil || share == 0 {
		return limitValue{bytes: bytes}, err
	}
	m, err := mem()
	if err != nil {
		return limitValue{}, fmt.Errorf("%q is a share of the machine's memory, which could not be read (%v): give a size such as 2GiB", v, err)
	}
	return limitValue{bytes: int64(float64(m.Bytes) * share / 100),
		from: fmt.Sprintf(": %s of %s %s", strings.TrimSpace(v), m.From, FormatBytes(m.Bytes))}, nil
}

// unit is a size's suffix and what it multiplies.
type unit struct {
	suffix string
	mult   int64
}

// sizeUnits are the binary powers of 1024 (GOMEMLIMIT's spelling), SI's
// powers of 1000, and bytes, binary first (KiB before B).
func sizeUnits() []unit {
	return []unit{
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1},
	}
}

// parseLimit parses sqlstream.memory.limit: a size (2GB, 1536MiB,
// 2147483648), a share of the machine's memory ("75%", share > 0), or
// off (no limit).
func parseLimit(v string) (bytes int64, share float64, err error) {
	s := strings.TrimSpace(v)
	bad := fmt.Errorf("%q is not a size (bytes, or a number with B, KB, MB, GB, TB, KiB, MiB, GiB or TiB), a share of the machine's memory (1%% to 100%%), or off", v)
	if strings.EqualFold(s, "off") {
		return NoLimit, 0, nil
	}
	if num, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || !(f >= 1 && f <= 100) {
			return 0, 0, bad
		}
		return 0, f, nil
	}
	mult := int64(1)
	for _, u := range sizeUnits() {
		if len(s) > len(u.suffix) && strings.EqualFold(s[len(s)-len(u.suffix):], u.suffix) {
			s, mult = strings.TrimSpace(s[:len(s)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || n <= 0 || n*float64(mult) >= math.MaxInt64 || strings.ContainsAny(s, "eExXpP") {
		return 0, 0, bad
	}
	return int64(n * float64(mult)), 0, nil
}

// FormatBytes writes n bytes with a binary unit, one decimal: for logs.
func FormatBytes(n int64) string {
	if n == NoLimit {
		return "off"
	}
	for _, u := range []unit{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.mult {
			return strconv.FormatFloat(float64(n)/float64(u.mult), 'f', 1, 64) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}
