package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/twmb/franz-go/pkg/kfake"
)

// slogAdapter sends kfake's log lines to a slog.Logger. kfake logs every
// request at its info level, which is debug chatter for sqlstream. While
// the broker shuts down, error lines (failed persistence) are also kept
// so that Close can return them.
type slogAdapter struct {
	l        *slog.Logger
	shutdown *shutdownErrors
}

var _ kfake.Logger = slogAdapter{}

func (a slogAdapter) Logf(level kfake.LogLevel, format string, args ...any) {
	if level == kfake.LogLevelError {
		a.shutdown.record(format, args)
	}
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

// shutdownErrors collects the errors kfake logs while it persists its
// state on Close; kfake's Close itself returns nothing.
type shutdownErrors struct {
	mu      sync.Mutex
	closing bool
	errs    []error
}

func (s *shutdownErrors) begin() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closing = true
}

func (s *shutdownErrors) record(format string, args []any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		s.errs = append(s.errs, fmt.Errorf(format, args...))
	}
}

func (s *shutdownErrors) err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.errs) == 0 {
		return nil
	}
	return fmt.Errorf("embedded broker shutdown: %w", errors.Join(s.errs...))
}
