package physical_test

import (
	"strconv"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
)

// maxGroupByAllocs is what is left per record: the sink's key and value
// buffer and the count's box past 255. 15 before the aggregate reused
// its buffers, 9 pinned after, 4 measured at the start of session 11;
// then the source's row reused before the group-by step, which borrows,
// and COUNT's result the accumulator's box, not a second one.
const maxGroupByAllocs = 2

// TestGroupByUpdateAllocations pins the allocations of one update of a
// cached group through a whole GROUP BY on the key (JSON source, COUNT,
// projection, sink): the count's box past 255 and the sink's encode are
// what is left (maxGroupByAllocs); the aggregate step itself allocates
// nothing for a group its store's cache holds (the key, the value kept
// decoded, the result and old rows all reuse the operator's buffers).
func TestGroupByUpdateAllocations(t *testing.T) {
	pl, stores := pipelineOver(t, `CREATE STREAM pv (user_id VARCHAR KEY, page VARCHAR, ms BIGINT)
	  WITH (KAFKA_TOPIC='pv', VALUE_FORMAT='JSON');`,
		`CREATE TABLE per_user AS SELECT user_id, COUNT(*) AS n FROM pv GROUP BY user_id EMIT CHANGES;`)
	const users = 10
	recs := make([]*physical.InRecord, users)
	for i := range recs {
		recs[i] = &physical.InRecord{Topic: "pv", Key: []byte("user_" + strconv.Itoa(i)),
			Value: []byte(`{"PAGE":"home","MS":` + strconv.Itoa(i) + `}`), Timestamp: int64(i)}
	}
	n := 0
	process := func() {
		if err := pl.process(recs[n%users]); err != nil {
			t.Fatal(err)
		}
		n++
	}
	for range 300 * users { // every count past the runtime's boxed small integers
		process()
	}
	if err := stores.flush(); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(200, process)
	t.Logf("%.1f allocations per update", allocs)
	if allocs > maxGroupByAllocs {
		t.Errorf("%.1f allocations per update of a cached group, want at most %d", allocs, maxGroupByAllocs)
	}
	if pl.emitted != n {
		t.Errorf("%d rows emitted for %d records", pl.emitted, n)
	}
}
