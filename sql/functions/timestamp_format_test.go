package functions

import "testing"

// TestParseTimestamp: a TIMESTAMP_FORMAT is parsed as PARSE_TIMESTAMP
// parses it; a value the pattern does not match is an error.
func TestParseTimestamp(t *testing.T) {
	r := NewRegistry()
	ms, err := r.ParseTimestamp("2024-01-02 03:04:05", "yyyy-MM-dd HH:mm:ss")
	if err != nil || ms != 1704164645000 {
		t.Errorf("parsed %d, %v; want 1704164645000", ms, err)
	}
	if _, err := r.ParseTimestamp("not a time", "yyyy-MM-dd"); err == nil {
		t.Error("a value the pattern does not match parsed")
	}
}
