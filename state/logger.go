package state

import (
	"fmt"
	"sync"
)

// quietLogger is the default Pebble logger: informational messages are
// dropped, errors are dropped too (Pebble reports them again through the
// failing call), fatal messages panic as Pebble expects them not to return.
type quietLogger struct{}

func (quietLogger) Infof(string, ...interface{})  {}
func (quietLogger) Errorf(string, ...interface{}) {}
func (quietLogger) Fatalf(format string, args ...interface{}) {
	panic(fmt.Sprintf("pebble: "+format, args...))
}

// RecordingLogger keeps Pebble's error messages so a caller (or a test) can
// show them; informational messages are dropped. Safe for concurrent use.
type RecordingLogger struct {
	mu     sync.Mutex
	errors []string
}

// Infof drops the message.
func (*RecordingLogger) Infof(string, ...interface{}) {}

// Errorf records the message.
func (l *RecordingLogger) Errorf(format string, args ...interface{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errors = append(l.errors, fmt.Sprintf(format, args...))
}

// Fatalf panics with the message.
func (*RecordingLogger) Fatalf(format string, args ...interface{}) {
	panic(fmt.Sprintf("pebble: "+format, args...))
}

// Errors returns the recorded error messages.
func (l *RecordingLogger) Errors() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.errors...)
}
