package planner

import (
	"fmt"
	"strconv"
	"strings"
)

// knownFormats are the serialization formats the WITH clause accepts.
// Schema-registry formats are recognized so the error can say they need a
// registry rather than that they do not exist.
var knownFormats = map[string]bool{
	"JSON": true, "DELIMITED": true, "KAFKA": true, "NONE": true,
	"AVRO": true, "PROTOBUF": true, "PROTOBUF_NOSR": true, "JSON_SR": true,
}

// unitMillis maps duration units to milliseconds.
var unitMillis = map[string]int64{
	"MILLISECOND": 1, "MILLISECONDS": 1,
	"SECOND": 1000, "SECONDS": 1000,
	"MINUTE": 60_000, "MINUTES": 60_000,
	"HOUR": 3_600_000, "HOURS": 3_600_000,
	"DAY": 86_400_000, "DAYS": 86_400_000,
}

// ParseDuration parses "20 SECONDS"-style durations into milliseconds.
func ParseDuration(s string) (int64, error) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return 0, fmt.Errorf("expected '<number> <unit>', e.g. '20 SECONDS'")
	}
	n, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bad number %q", f[0])
	}
	u, ok := unitMillis[strings.ToUpper(f[1])]
	if !ok {
		return 0, fmt.Errorf("unknown time unit %q", f[1])
	}
	return n * u, nil
}
