package state

import (
	"testing"
)

func TestOptionsValidate(t *testing.T) {
	if _, err := OpenMem(WithBlockCache(-1)); err == nil {
		t.Error("negative block cache accepted")
	}
	if _, err := OpenMem(WithMemTable(1 << 10)); err == nil {
		t.Error("1 KiB memtable accepted")
	}
	if db, err := OpenMem(WithMemTable(4 << 20)); err != nil {
		t.Errorf("4 MiB memtable: %v", err)
	} else {
		must(t, db.Close())
	}
	if _, err := OpenMem(WithLogger(nil)); err == nil {
		t.Error("nil logger accepted")
	}
	if _, err := memDB(t).Store(testID, WithCache(-1)); err == nil {
		t.Error("negative store cache accepted")
	}
}

// TestRecordingLogger: a caller-supplied logger receives Pebble's errors.
func TestRecordingLogger(t *testing.T) {
	var l RecordingLogger
	l.Infof("dropped %d", 1)
	l.Errorf("kept %d", 2)
	if got := l.Errors(); len(got) != 1 || got[0] != "kept 2" {
		t.Fatalf("errors %q", got)
	}
	db, err := OpenMem(WithLogger(&l), WithSync(false))
	must(t, err)
	must(t, db.Close())
}
