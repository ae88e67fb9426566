package commandlog

import (
	"testing"
	"time"
)

// TestAppendBackoffGrowsAndIsBounded checks the pause between fenced
// command appends: within [0, 20 ms · 2^attempt), capped at attempt 7.
func TestAppendBackoffGrowsAndIsBounded(t *testing.T) {
	for attempt := range MaxAppendAttempts + 3 {
		limit := 20 * time.Millisecond << min(attempt, 7)
		for range 200 {
			if d := appendBackoff(attempt); d < 0 || d >= limit {
				t.Fatalf("attempt %d: backoff %v outside [0, %v)", attempt, d, limit)
			}
		}
	}
}
