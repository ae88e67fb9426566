package broker

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/twmb/franz-go/pkg/kfake"
)

// slogAdapter sends kfake's log lines to a slog.Logger. kfake logs every
// request at its info level, which is debug chatter for sqlstream.
type slogAdapter struct{ l *slog.Logger }

var _ kfake.Logger = slogAdapter{}

func (a slogAdapter) Logf(level kfake.LogLevel, format string, args ...any) {
	lvl := slogLevel(level)
	ctx := context.Background()
	if !a.l.Enabled(ctx, lvl) {
		return
	}
	a.l.Log(ctx, lvl, fmt.Sprintf(format, args...), "component", "broker")
}

func slogLevel(level kfake.LogLevel) slog.Level {
	switch level {
	case kfake.LogLevelError:
		return slog.LevelError
	case kfake.LogLevelWarn:
		return slog.LevelWarn
	case kfake.LogLevelInfo:
		return slog.LevelDebug
	default:
		return slog.LevelDebug - 4
	}
}
