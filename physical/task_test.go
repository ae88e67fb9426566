package physical

import (
	"strings"
	"testing"
)

type panicky struct{}

func (panicky) ProcessRaw(*InRecord) error { panic("boom") }

type logRecorder struct{ entries []*LogEntry }

func (l *logRecorder) Log(e *LogEntry) { l.entries = append(l.entries, e) }

// TestTaskRecoversPanics checks that an operator bug skips the record and
// logs it instead of killing the process.
func TestTaskRecoversPanics(t *testing.T) {
	log := &logRecorder{}
	task := &Task{env: &TaskEnv{Log: log}, head: panicky{}}
	if err := task.Process(&InRecord{Topic: "t", Partition: 2, Offset: 7, Value: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	if len(log.entries) != 1 {
		t.Fatalf("entries: %d", len(log.entries))
	}
	e := log.entries[0]
	if e.Topic != "t" || e.Partition != 2 || e.Offset != 7 || !strings.Contains(e.Message, "boom") {
		t.Fatalf("entry %+v", e)
	}
}
