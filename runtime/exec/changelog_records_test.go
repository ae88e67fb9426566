package exec

import (
	"testing"

	"github.com/sqlstream/sqlstream/state"
)

// TestChangelogRecordsRecycleTheirBuffers: a changelog record is the
// store write's key and value (copied: the store reuses its buffers), an
// empty value stays a value and a nil one a tombstone; a record not yet
// put back keeps its bytes while others are made, and once records go
// back with their buffers the next ones cost no allocation.
func TestChangelogRecordsRecycleTheirBuffers(t *testing.T) {
	var c changelogRecords
	key, value := []byte("user_1"), []byte(`{"N":1}`)
	held := c.get("cl", 2, key, value, 7)
	key[0], value[0] = 'X', 'X' // the store reuses its buffers
	if string(held.Key) != "user_1" || string(held.Value) != `{"N":1}` || held.Topic != "cl" || held.Partition != 2 || held.Timestamp.UnixMilli() != 7 {
		t.Fatalf("record %q %q %s/%d at %d, want user_1 {\"N\":1} cl/2 at 7", held.Key, held.Value, held.Topic, held.Partition, held.Timestamp.UnixMilli())
	}
	for range 10 {
		c.put(c.get("cl", 0, []byte("other"), []byte("value that is longer"), state.NoTimestamp))
	}
	if string(held.Key) != "user_1" || string(held.Value) != `{"N":1}` {
		t.Errorf("a record in flight changed to %q %q", held.Key, held.Value)
	}
	if r := c.get("cl", 0, []byte("k"), []byte{}, state.NoTimestamp); r.Value == nil {
		t.Error("an empty value became a tombstone")
	} else {
		c.put(r)
	}
	if r := c.get("cl", 0, []byte("k"), nil, state.NoTimestamp); r.Value != nil {
		t.Errorf("a tombstone has value %q", r.Value)
	} else {
		c.put(r)
	}
	k, v := []byte("user_2"), []byte(`{"N":2}`)
	allocs := testing.AllocsPerRun(100, func() { c.put(c.get("cl", 1, k, v, 9)) })
	if allocs > 0 {
		t.Errorf("a recycled changelog record costs %.1f allocations, want 0", allocs)
	}
}
