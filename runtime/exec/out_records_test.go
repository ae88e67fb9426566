package exec

import (
	"errors"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/state"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestOutputRecordsAreRecycledClean: an output record goes back to the
// runner's pool once its promise is called, and the next output built
// from the pool carries nothing of the one before (partition, placement,
// headers, key, value), whether or not that one failed; a failure is
// still kept for the commit.
func TestOutputRecordsAreRecycledClean(t *testing.T) {
	r := &kafkaRunner{}
	first := r.outRecord(&physical.OutRecord{Topic: "a", Partition: 2, Key: []byte("k"), Value: []byte("v"), Timestamp: 5,
		Headers: []physical.Header{{Key: "h", Value: []byte("1")}}})
	if first.Partition != 2 || first.Context != manualCtx || len(first.Headers) != 1 {
		t.Fatalf("first record %+v", first)
	}
	r.onEmitted(first, errors.New("refused"))
	if r.emitErr == nil {
		t.Fatal("the failed output was not kept for the commit")
	}
	for range 10 { // the pool may drop or keep the record: either way it is clean
		kr := r.outRecord(&physical.OutRecord{Topic: "b", Partition: -1, Key: []byte("k2"), Timestamp: 7})
		if kr.Topic != "b" || kr.Partition != 0 || kr.Context != nil || len(kr.Headers) != 0 ||
			string(kr.Key) != "k2" || kr.Value != nil || kr.Timestamp.UnixMilli() != 7 {
			t.Fatalf("recycled record %+v", kr)
		}
		r.onEmitted(kr, nil)
	}
}

// TestChangelogRecordsReuseTheirRoom: a changelog record built on a
// recycled one copies its key and value into the room the one before
// left, without an allocation when it fits, and carries nothing else of
// it: an empty value stays empty (not a tombstone), a null value a
// tombstone, an empty key null.
func TestChangelogRecordsReuseTheirRoom(t *testing.T) {
	r := &kafkaRunner{produced: map[tp]int64{}}
	kr := changelogRecord(&kgo.Record{}, "c", 1, []byte("key-1"), []byte("value-1"), 9)
	r.onChangelogged(kr, nil)
	for _, tc := range []struct{ key, value []byte }{
		{[]byte("k2"), []byte("v2")},
		{[]byte("k3"), []byte{}},
		{[]byte("k4"), nil},
		{nil, []byte("v5")},
		{nil, nil},
		{[]byte("a longer key than any before"), []byte("and a longer value")},
	} {
		got := changelogRecord(&kgo.Record{Key: recycledRoom(kr)}, "c", 1, tc.key, tc.value, state.NoTimestamp)
		if string(got.Key) != string(tc.key) || (got.Key == nil) != (len(tc.key) == 0) ||
			string(got.Value) != string(tc.value) || (got.Value == nil) != (tc.value == nil) {
			t.Errorf("record for %q=%q: key %q value %q (nil %v)", tc.key, tc.value, got.Key, got.Value, got.Value == nil)
		}
		kr = got
	}
	room := &kgo.Record{}
	build := func() {
		*room = kgo.Record{Key: recycledRoom(room)}
		changelogRecord(room, "c", 1, []byte("key-1"), []byte("value-1"), 9)
	}
	build()
	if n := testing.AllocsPerRun(100, build); n != 0 {
		t.Errorf("a changelog record on recycled room made %.0f allocations, want 0", n)
	}
}
