package state

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestSlogLogger: Pebble's information is debug, its errors errors, each
// tagged component=pebble; Fatalf logs and panics (it must not return).
func TestSlogLogger(t *testing.T) {
	var buf bytes.Buffer
	l := SlogLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	l.Infof("flushed %d", 1)
	l.Errorf("wal %s", "stuck")
	func() {
		defer func() {
			if p := recover(); p != "fatal x" {
				t.Errorf("Fatalf panicked with %v", p)
			}
		}()
		l.Fatalf("fatal %s", "x")
		t.Error("Fatalf returned")
	}()
	out := buf.String()
	for _, want := range []string{`level=DEBUG msg="flushed 1" component=pebble`, `level=ERROR msg="wal stuck" component=pebble`, `level=ERROR msg="fatal x" component=pebble`} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}
