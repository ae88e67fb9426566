package physical

import (
	"fmt"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
	"github.com/sqlstream/sqlstream/state"
)

// joinHeadFor builds the join of script's last statement (a push query;
// the statements before it create its sources) as a task's head whose
// join rows go to next, over stores in a fresh in-memory state DB.
func joinHeadFor(t *testing.T, script string, next Processor) rawProcessor {
	t.Helper()
	j := plannedJoin(t, script)
	b := &builder{opts: Options{AppID: "app"}, topo: &Topology{}, rootJoin: j, schemas: subjectSchemas{}}
	b.startJoin(j)
	db, err := state.OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	head, err := b.cur.head(&TaskEnv{Stores: dbStores{db}}, next)
	if err != nil {
		t.Fatal(err)
	}
	return head
}

// valuesBorrowingKeeper says it borrows the rows it is given, and keeps
// their Values anyway, so a test can see that they share one slice.
type valuesBorrowingKeeper struct{ valuesKeeper }

func (k *valuesBorrowingKeeper) borrowsValues() bool { return true }

const streamTableJoinScript = `CREATE STREAM o (C STRING KEY, ID STRING) WITH (KAFKA_TOPIC='o', VALUE_FORMAT='JSON', PARTITIONS=1);
CREATE TABLE c (C STRING PRIMARY KEY, NAME STRING) WITH (KAFKA_TOPIC='c', VALUE_FORMAT='JSON', PARTITIONS=1);
SELECT * FROM o JOIN c ON o.C = c.C EMIT CHANGES;`

const streamStreamJoinScript = `CREATE STREAM l (K STRING KEY, A STRING) WITH (KAFKA_TOPIC='l', VALUE_FORMAT='JSON', PARTITIONS=1);
CREATE STREAM r (K STRING KEY, B STRING) WITH (KAFKA_TOPIC='r', VALUE_FORMAT='JSON', PARTITIONS=1);
SELECT * FROM l JOIN r WITHIN 1 MINUTE ON l.K = r.K EMIT CHANGES;`

// joinRecords feeds a join head: a table or right-side row for key k,
// then two left rows of k, each its own id.
func joinRecords(t *testing.T, head rawProcessor, left, right, leftField, rightField string) {
	t.Helper()
	recs := []*InRecord{
		{Topic: right, Key: []byte("k"), Value: []byte(`{"` + rightField + `":"x"}`), Timestamp: 1000},
		{Topic: left, Key: []byte("k"), Value: []byte(`{"` + leftField + `":"first"}`), Timestamp: 2000},
		{Topic: left, Key: []byte("k"), Value: []byte(`{"` + leftField + `":"second"}`), Timestamp: 3000},
	}
	for _, r := range recs {
		if err := head.ProcessRaw(r); err != nil {
			t.Fatal(err)
		}
	}
}

// keptIDs is the left side's value of each kept row (column col).
func keptIDs(kept [][]any, col int) string {
	out := make([]any, len(kept))
	for i, v := range kept {
		out[i] = v[col]
	}
	return fmt.Sprint(out)
}

// TestJoinsGiveKeepersRowsOfTheirOwn: a stream–table and a stream–stream
// join before an operator that does not say it borrows (a push query's
// queue, another join's side) give each output row a Values slice of its
// own, which the operator may keep; before one that borrows they refill
// one slice (Processor's contract, row_reuse.go).
func TestJoinsGiveKeepersRowsOfTheirOwn(t *testing.T) {
	for _, tc := range []struct {
		name, script, left, right, leftField, rightField string
	}{
		{"stream-table", streamTableJoinScript, "o", "c", "ID", "NAME"},
		{"stream-stream", streamStreamJoinScript, "l", "r", "A", "B"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keep := &valuesKeeper{}
			joinRecords(t, joinHeadFor(t, tc.script, keep), tc.left, tc.right, tc.leftField, tc.rightField)
			// the join's columns: the key, then the left side's value
			if got := keptIDs(keep.kept, 1); got != "[first second]" {
				t.Errorf("kept rows' left values %s, want [first second] (rows %v)", got, keep.kept)
			}
			borrow := &valuesBorrowingKeeper{}
			joinRecords(t, joinHeadFor(t, tc.script, borrow), tc.left, tc.right, tc.leftField, tc.rightField)
			if k := borrow.kept; len(k) != 2 || &k[0][0] != &k[1][0] {
				t.Errorf("before a borrower, %d rows with Values of their own, want 2 sharing one slice", len(k))
			}
		})
	}
}

var _ Processor = (*valuesBorrowingKeeper)(nil)

// discardBorrower borrows and keeps nothing: a sink without the encoding.
type discardBorrower struct{ n int }

func (d *discardBorrower) Process(*types.Row) error { d.n++; return nil }
func (d *discardBorrower) borrowsValues() bool      { return true }

// TestStreamStreamJoinAllocations: in the steady state of
// BenchmarkStreamStreamJoin's shape (keys seen before, each left row
// matched by one right row 30 s later) a pair of rows costs at most 14
// allocations in the join's head, over a state DB without changelog
// (19 when the join encoded each row's store key into a new slice, the
// cache copied each row's values into one and its trim resliced each
// key's rows, so that the next put grew them again). Left: the sources'
// rows, decoded keys and strings (6), the store's puts (6), the joined
// row time boxed (1), the cached rows' chunks and the outputs' share.
func TestStreamStreamJoinAllocations(t *testing.T) {
	out := &discardBorrower{}
	head := joinHeadFor(t, streamStreamJoinScript, out)
	const keys, pairs = 100, 3000
	recs := make([]*InRecord, 0, 2*pairs)
	for i := range pairs {
		k := []byte(fmt.Sprintf("user_%d", i%keys))
		recs = append(recs,
			&InRecord{Topic: "l", Key: k, Value: []byte(fmt.Sprintf(`{"A":"/product/%d"}`, i)), Timestamp: int64(1000 * i)},
			&InRecord{Topic: "r", Key: k, Value: []byte(fmt.Sprintf(`{"B":"page_%d"}`, i)), Timestamp: int64(1000*i + 30000)})
	}
	next := 0
	pair := func() {
		for range 2 {
			if err := head.ProcessRaw(recs[next]); err != nil {
				t.Fatal(err)
			}
			next++
		}
	}
	for range pairs / 2 { // warm: every key cached, every slice grown
		pair()
	}
	n := testing.AllocsPerRun(pairs/2-2, pair)
	if out.n < pairs-2 {
		t.Fatalf("%d joined rows for %d pairs", out.n, pairs)
	}
	if n > 14 {
		t.Errorf("a pair of rows costs %.2f allocations, want at most 14", n)
	}
}
