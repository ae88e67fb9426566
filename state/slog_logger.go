package state

import (
	"fmt"
	"log/slog"

	"github.com/cockroachdb/pebble/v2"
)

// SlogLogger routes Pebble's messages to l (for WithLogger): information
// at debug level, errors at error level, tagged component=pebble; Fatalf
// logs, then panics, as Pebble requires it not to return.
func SlogLogger(l *slog.Logger) pebble.Logger { return slogLogger{l} }

type slogLogger struct{ l *slog.Logger }

func (p slogLogger) Infof(format string, args ...any) {
	p.l.Debug(fmt.Sprintf(format, args...), "component", "pebble")
}

func (p slogLogger) Errorf(format string, args ...any) {
	p.l.Error(fmt.Sprintf(format, args...), "component", "pebble")
}

func (p slogLogger) Fatalf(format string, args ...any) {
	p.l.Error(fmt.Sprintf(format, args...), "component", "pebble")
	panic(fmt.Sprintf(format, args...))
}
