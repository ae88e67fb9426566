package exec

import (
	"errors"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
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

// TestOutputRecordsRecycleTheirBuffers: an output record is the emitted
// key, value, partition key and header values copied (the sink and the
// repartition sinks reuse their buffers), a
// nil key and value stay null and empty ones empty, a windowed key's
// inner key still places the record by a length (no context value); a
// record not yet put back keeps its bytes while others are made and
// recycled, and once records go back with their buffers the next ones
// cost no allocation.
func TestOutputRecordsRecycleTheirBuffers(t *testing.T) {
	var o outRecords
	key, value, origin := []byte("user_1+window"), []byte(`{"N":1}`), []byte("page-views/3/42")
	held := o.get(&physical.OutRecord{Topic: "out", Partition: -1, Key: key, Value: value, Timestamp: 7, PartitionKey: key[:6],
		Headers: []physical.Header{{Key: "origin", Value: origin}, {Key: "empty", Value: []byte{}}, {Key: "null"}}})
	key[0], value[0], origin[0] = 'X', 'X', 'X' // the sink reuses its buffers, its headers' too
	if string(held.Key) != "user_1+window" || string(held.Value) != `{"N":1}` || held.Topic != "out" || held.Timestamp.UnixMilli() != 7 {
		t.Fatalf("record %q %q %s at %d, want user_1+window {\"N\":1} out at 7", held.Key, held.Value, held.Topic, held.Timestamp.UnixMilli())
	}
	if hs := held.Headers; len(hs) != 3 || hs[0].Key != "origin" || string(hs[0].Value) != "page-views/3/42" ||
		hs[1].Value == nil || len(hs[1].Value) != 0 || hs[2].Value != nil {
		t.Fatalf("headers %q, want origin page-views/3/42, an empty value and a null one", hs)
	}
	if pk, ok := placement(held); !ok || string(pk) != "user_1" || held.Context != keyPrefix(6) {
		t.Errorf("placed by %q (%v, context %v), want the key's first 6 bytes", pk, ok, held.Context)
	}
	other := []byte("right table key")
	for range 10 {
		kr := o.get(&physical.OutRecord{Topic: "out", Partition: -1, Key: []byte("other"), Value: []byte("a value that is longer"), PartitionKey: other})
		if pk, ok := placement(kr); !ok || string(pk) != "right table key" || &pk[0] == &other[0] {
			t.Errorf("placed by %q (%v), want a copy of the partition key", pk, ok)
		}
		o.put(kr)
	}
	if string(held.Key) != "user_1+window" || string(held.Value) != `{"N":1}` || string(held.Headers[0].Value) != "page-views/3/42" {
		t.Errorf("a record in flight changed to %q %q %q", held.Key, held.Value, held.Headers[0].Value)
	}
	kr := o.get(&physical.OutRecord{Topic: "out", Partition: -1, Key: nil, Value: []byte{}})
	if kr.Key != nil || kr.Value == nil || len(kr.Value) != 0 {
		t.Errorf("null key, empty value became %q (nil %v), %q (nil %v)", kr.Key, kr.Key == nil, kr.Value, kr.Value == nil)
	}
	o.put(kr)
	kr = o.get(&physical.OutRecord{Topic: "out", Partition: -1, Key: []byte{}, Value: nil})
	if kr.Key == nil || kr.Value != nil {
		t.Errorf("empty key, tombstone became %q (nil %v), %q (nil %v)", kr.Key, kr.Key == nil, kr.Value, kr.Value == nil)
	}
	o.put(kr)
	rec := &physical.OutRecord{Topic: "out", Partition: -1, Key: []byte("user_2"), Value: []byte(`{"N":2}`), Timestamp: 9,
		Headers: []physical.Header{{Key: "h", Value: []byte("1")}}}
	allocs := testing.AllocsPerRun(100, func() { o.put(o.get(rec)) })
	if allocs > 0 {
		t.Errorf("a recycled output record costs %.1f allocations, want 0", allocs)
	}
}
