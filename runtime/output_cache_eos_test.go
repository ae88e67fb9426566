package runtime_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestEOSOutputCacheCollapsesHotKey: under exactly_once_v2 a key counted
// 40 times in one transaction (one batch, one fetch) commits one record,
// its final count, as Kafka Streams' cache forwards under EOS too; the
// other keys' counts are exact.
func TestEOSOutputCacheCollapsesHotKey(t *testing.T) {
	f := newEOSRig(t)
	f.eosCounts("eos_counts", "exactly_once_v2", 1)
	var recs []*kgo.Record
	want := map[string]int{"hot": 40}
	for i := range 40 {
		recs = append(recs, &kgo.Record{Topic: "s", Key: []byte("hot"), Value: fmt.Appendf(nil, `{"V":%d}`, i)})
	}
	for i := range 5 {
		k := fmt.Sprint("f", i)
		want[k] = 1
		recs = append(recs, &kgo.Record{Topic: "s", Key: []byte(k), Value: []byte(`{"V":0}`)})
	}
	if err := f.cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	got := f.awaitCounts("eos_counts", want)
	if !slices.Equal(got["hot"], []int{40}) {
		t.Errorf("hot key committed counts %v, want one record of the final count 40", got["hot"])
	}
}
