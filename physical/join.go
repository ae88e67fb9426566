package physical

import (
	"fmt"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/types"
)

// joinHead is the head of a join's sub-topology: it hands each raw record
// to the source operator of the side whose topic it came from. Both
// topics are co-partitioned, so one task owns partition p of both.
type joinHead struct {
	byTopic map[string]rawProcessor
}

func (h *joinHead) ProcessRaw(r *InRecord) error {
	p, ok := h.byTopic[r.Topic]
	if !ok {
		return fmt.Errorf("join task got a record of unexpected topic %s", r.Topic)
	}
	return p.ProcessRaw(r)
}

// joiner builds the join's output rows from one row per side.
type joiner struct {
	n *planner.Join
}

// join lays out the output values; l or r is nil for a missing side.
// key is the value the sides matched on. Each side's values are followed
// by its row's time (withTime): a source's hidden ALIAS_ROWTIME column.
func (j joiner) join(key any, l, r []any) []any {
	out := make([]any, len(j.n.Columns))
	for i, c := range j.n.Columns {
		switch {
		case c.Side == planner.JoinKey:
			out[i] = key
		case c.Side == planner.JoinLeft && l != nil:
			out[i] = l[c.Index]
		case c.Side == planner.JoinRight && r != nil:
			out[i] = r[c.Index]
		}
	}
	return out
}

// withTime returns a side's values followed by its row's time (a copy;
// nil stays nil: a missing side).
func withTime(vals []any, ts int64) []any {
	if vals == nil {
		return nil
	}
	return append(vals[:len(vals):len(vals)], ts)
}

// streamTableJoin is the stream side of a stream–table join: each stream
// row looks up the table's current row by key (Kafka Streams'
// KStreamKTableJoinProcessor). Only stream rows trigger; the output keeps
// the stream row's time, partition and offset. An as-of join looks up the
// version valid at the row's time instead, after its grace buffer
// (join_asof.go).
type streamTableJoin struct {
	joiner
	table *sideStore
	asOf  *asOfLookup // as-of joins: the versioned table and the buffer
	left  bool        // LEFT JOIN: emit (S, null) when the table has no row
	// rekeyed: rows come from the repartition topic as [key, values…]
	rekeyed bool
	next    Processor
}

// split returns the join key and the stream side's columns of row.
func (op *streamTableJoin) split(row *types.Row) (any, []any) {
	if op.rekeyed {
		return row.Values[0], row.Values[1:]
	}
	return row.Values[op.n.Left.KeyIndex], row.Values
}

func (op *streamTableJoin) Process(row *types.Row) error {
	if row.Tombstone || (row.NullKey && !op.left) {
		return nil // null values (and null keys of an inner join) never join
	}
	if op.asOf != nil && op.asOf.buffer != nil {
		return op.asOf.buffer.process(row, op.joinRow)
	}
	return op.joinRow(row)
}

// joinRow joins one stream row with its table row and forwards the result.
func (op *streamTableJoin) joinRow(row *types.Row) error {
	key, vals := op.split(row)
	var right []any
	if !row.NullKey {
		k, err := op.table.encodeKey([]any{key})
		if err != nil {
			return err
		}
		t, err := op.lookup(k, key, row)
		if err != nil {
			return err
		}
		if t != nil {
			right = withTime(t.values, t.time)
		}
	}
	if right == nil && !op.left {
		return nil
	}
	out := &types.Row{Values: op.join(key, withTime(vals, row.Time), right), Time: row.Time, Partition: row.Partition,
		Offset: row.Offset, NullKey: row.NullKey}
	return op.next.Process(out)
}

// lookup returns the table row a stream row joins (nil: none): the
// current one, or for an as-of join the version valid at its time.
func (op *streamTableJoin) lookup(k []byte, key any, row *types.Row) (*sideRow, error) {
	if op.asOf == nil {
		return op.table.get(k, []any{key})
	}
	return op.asOf.get(k, key, row, op.rekeyed)
}

// tableSide is the table side of a stream–table join: its changes only
// update the store the stream side reads (a tombstone deletes).
type tableSide struct {
	table *sideStore
}

func (op *tableSide) Process(row *types.Row) error {
	_, _, err := op.table.update(row)
	return err
}

var (
	_ Processor    = (*streamTableJoin)(nil)
	_ Processor    = (*tableSide)(nil)
	_ rawProcessor = (*joinHead)(nil)
)
