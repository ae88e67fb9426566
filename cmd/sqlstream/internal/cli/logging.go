package cli

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
)

// newLogger logs to w at s's level and in its format: slog's text
// handler, or its JSON handler for sqlstream.log.format=json.
func newLogger(w io.Writer, s Settings) *slog.Logger {
	opts := &slog.HandlerOptions{Level: s.LogLevel}
	if s.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// openLogFile opens the combined mode's log file for appending, creating
// the data directory as needed.
func openLogFile(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("creating data directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening log file: %w", err)
	}
	return f, nil
}
