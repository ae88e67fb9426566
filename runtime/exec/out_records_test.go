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
