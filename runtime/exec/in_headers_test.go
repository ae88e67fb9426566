package exec

import (
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestFetchedHeadersNotCopied: a fetched record's headers reach the
// operators as they are (same keys and values, in order, nil for none)
// without an allocation.
func TestFetchedHeadersNotCopied(t *testing.T) {
	kr := &kgo.Record{Topic: "t", Key: []byte("k"), Timestamp: time.UnixMilli(5),
		Headers: []kgo.RecordHeader{{Key: "a", Value: []byte("1")}, {Key: "sqlstream.origin", Value: []byte("t/0/7")}, {Key: "b"}}}
	var in physical.InRecord
	fromKgo(kr, &in)
	if len(in.Headers) != 3 || in.Headers[0].Key != "a" || string(in.Headers[0].Value) != "1" ||
		in.Headers[1].Key != "sqlstream.origin" || string(in.Headers[1].Value) != "t/0/7" || in.Headers[2].Key != "b" || in.Headers[2].Value != nil {
		t.Errorf("headers %+v, want a=1, sqlstream.origin=t/0/7, b", in.Headers)
	}
	if n := testing.AllocsPerRun(100, func() { fromKgo(kr, &in) }); n != 0 {
		t.Errorf("a record with headers costs %.0f allocations, want 0", n)
	}
	fromKgo(&kgo.Record{Topic: "t"}, &in)
	if in.Headers != nil {
		t.Errorf("a record without headers has headers %v", in.Headers)
	}
}
