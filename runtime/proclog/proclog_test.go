package proclog

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
)

// TestProcessingLogEntryCap: an entry for a record far above the
// broker's message size keeps the record's topic, partition and offset,
// copies only its first maxLoggedRecord bytes and says so, and cuts a
// huge error message; a small record is copied whole with its message
// untouched.
func TestProcessingLogEntryCap(t *testing.T) {
	big := []byte(strings.Repeat("x", 2<<20))
	e := &physical.LogEntry{Topic: "in", Partition: 3, Offset: 42, Message: strings.Repeat("é", 1<<20), Record: big}
	b := entryValue("CSAS_1", e, 7)
	if len(b) > 200<<10 {
		t.Fatalf("entry of %d bytes", len(b))
	}
	var v logEntry
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	m := v.Message
	if m.Topic != "in" || m.Partition != 3 || m.Offset != 42 {
		t.Errorf("entry lost the record's place: %+v", m)
	}
	rec, err := base64.StdEncoding.DecodeString(m.RecordB64)
	if err != nil || len(rec) != maxLoggedRecord {
		t.Errorf("RECORDB64 holds %d bytes (%v), want %d", len(rec), err, maxLoggedRecord)
	}
	for _, want := range []string{"(cut, 2097152 bytes in all)", "the first 65536 of the record's 2097152 bytes", "in partition 3 offset 42"} {
		if !strings.Contains(m.ErrorMessage, want) {
			t.Errorf("message %.80q… lacks %q", m.ErrorMessage[len(m.ErrorMessage)-200:], want)
		}
	}
	small := &physical.LogEntry{Topic: "in", Message: "bad", Record: []byte("{")}
	if err := json.Unmarshal(entryValue("q", small, 7), &v); err != nil || v.Message.ErrorMessage != "bad" || v.Message.RecordB64 != "ew==" {
		t.Errorf("small record: %+v %v", v.Message, err)
	}
}
