package physical

import (
	"errors"
	"strings"
	"testing"
)

type panicky struct{}

func (panicky) ProcessRaw(*InRecord) error { panic("boom") }

type logRecorder struct{ entries []*LogEntry }

func (l *logRecorder) Log(e *LogEntry) { l.entries = append(l.entries, e) }

// TestTaskRecoversPanics checks that an operator bug does not kill the
// process: it is a *PanicError naming the record and the frame that
// panicked (fatal for the query, not a record skipped as bad data), and
// the record is logged with the panic.
func TestTaskRecoversPanics(t *testing.T) {
	log := &logRecorder{}
	task := &Task{env: &TaskEnv{Log: log}, head: panicky{}}
	err := task.Process(&InRecord{Topic: "t", Partition: 2, Offset: 7, Value: []byte("x")})
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("Process returned %v, want a *PanicError", err)
	}
	if pe.Value != "boom" || !strings.Contains(pe.Frame, "panicky.ProcessRaw (task_test.go:") {
		t.Fatalf("panic %v at %q", pe.Value, pe.Frame)
	}
	if want := "t[2] offset 7: boom at "; !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not say %q", err, want)
	}
	if len(log.entries) != 1 {
		t.Fatalf("entries: %d", len(log.entries))
	}
	e := log.entries[0]
	if e.Topic != "t" || e.Partition != 2 || e.Offset != 7 || !strings.Contains(e.Message, "boom") {
		t.Fatalf("entry %+v", e)
	}
}
