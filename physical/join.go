package physical

import (
	"fmt"
	"slices"

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
// key holds the values the sides matched on, one per key column (nil: a
// null key). Each side's values are followed by its row's time
// (withTime): a source's hidden ALIAS_ROWTIME column.
func (j joiner) join(key []any, l, r []any) []any {
	out := make([]any, len(j.n.Columns))
	for i, c := range j.n.Columns {
		switch {
		case c.Side == planner.JoinKey && key != nil:
			out[i] = key[c.Index]
		case c.Side == planner.JoinLeft && l != nil:
			out[i] = l[c.Index]
		case c.Side == planner.JoinRight && r != nil:
			out[i] = r[c.Index]
		}
	}
	return out
}

// timed is a side's values with its row's time and window after them,
// laid out as withTime lays them, without the copy; nil vals: a missing
// side.
type timed struct {
	vals  []any
	ts    int64
	boxed any // ts boxed, when the side has it so (nil: box it here)
	w     *types.Window
}

// at is withTime(t.vals, t.ts, t.w)[i].
func (t timed) at(i int) any {
	switch n := len(t.vals); {
	case i < n:
		return t.vals[i]
	case i == n:
		if t.boxed != nil {
			return t.boxed
		}
		return t.ts
	case i == n+1:
		return t.w.Start
	}
	return t.w.End
}

// joinTimed is join(key, withTime(l…), withTime(r…)) without the two
// copies: the output's one allocation is all a joined row costs.
func (j joiner) joinTimed(key []any, l, r timed) []any {
	return j.joinTimedInto(make([]any, len(j.n.Columns)), key, l, r)
}

// joinTimedInto is joinTimed into out, every slot of it written: an
// operator's output values from its rowValues (one slice refilled for
// every output when its successor borrows, see row_reuse.go).
func (j joiner) joinTimedInto(out []any, key []any, l, r timed) []any {
	out = out[:len(j.n.Columns)]
	for i, c := range j.n.Columns {
		var v any
		switch {
		case c.Side == planner.JoinKey && key != nil:
			v = key[c.Index]
		case c.Side == planner.JoinLeft && l.vals != nil:
			v = l.at(c.Index)
		case c.Side == planner.JoinRight && r.vals != nil:
			v = r.at(c.Index)
		}
		out[i] = v
	}
	return out
}

// accepts reports whether the join's residual condition (ON's conjuncts
// besides the key equalities) holds for a joined row; a pair it rejects
// is no match. An error or a null counts as false, as in a WHERE.
func (j joiner) accepts(out []any) bool {
	if j.n.Residual == nil {
		return true
	}
	ok, err := j.n.Residual.EvalBool(&types.Row{Values: out})
	return err == nil && ok
}

// joinKeyOf returns the join key of a side's row (one value per key
// column) and the side's columns: a re-keyed row comes as [key…,
// values…].
func joinKeyOf(row *types.Row, in *planner.JoinInput, width int) ([]any, []any) {
	if in.Rekeyed() {
		return row.Values[:width], row.Values[width:]
	}
	if len(in.Keys) == 1 { // a view of the row's values (never written), not a copy
		i := in.Keys[0]
		return row.Values[i : i+1 : i+1], row.Values
	}
	key := make([]any, len(in.Keys))
	for i, idx := range in.Keys {
		key[i] = row.Values[idx]
	}
	return key, row.Values
}

// nullJoinKey reports whether a row's join key is null: a null record
// key, or a null column of a composite key (never equal to anything).
func nullJoinKey(row *types.Row, key []any) bool {
	return row.NullKey || (len(key) > 1 && slices.Contains(key, nil))
}

// withTime returns a side's values followed by its row's time and, for
// a row of a windowed source, its window's start and end (the hidden
// ALIAS_ROWTIME and the ALIAS_WINDOWSTART / ALIAS_WINDOWEND columns); a
// copy, nil stays nil: a missing side.
func withTime(vals []any, ts int64, w *types.Window) []any {
	if vals == nil {
		return nil
	}
	out := append(vals[:len(vals):len(vals)], ts)
	if w != nil {
		out = append(out, w.Start, w.End)
	}
	return out
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
	env   *TaskEnv    // counts the rows skipped for a null key or value
	next  Processor
	out   types.Row // the output row (a Processor keeps no row it is given)
	vals  rowValues // the output rows' Values: one slice refilled when next borrows
}

func (op *streamTableJoin) Process(row *types.Row) error {
	if row.Tombstone {
		op.env.skip() // null values never join
		return nil
	}
	key, _ := joinKeyOf(row, &op.n.Left, op.n.KeyWidth())
	if nullJoinKey(row, key) && !op.left {
		op.env.skip() // nor do null keys of an inner join
		return nil
	}
	if op.asOf != nil && op.asOf.buffer != nil {
		return op.asOf.buffer.process(row, op.joinRow)
	}
	return op.joinRow(row)
}

// joinRow joins one stream row with its table row and forwards the result.
func (op *streamTableJoin) joinRow(row *types.Row) error {
	key, vals := joinKeyOf(row, &op.n.Left, op.n.KeyWidth())
	var right timed
	if !nullJoinKey(row, key) {
		t, err := op.lookup(key, vals, row)
		if err != nil {
			return err
		}
		if t != nil {
			right = t.timed(row.Window)
		}
	}
	left := timed{vals: vals, ts: row.Time, w: row.Window}
	buf := op.vals.get(len(op.n.Columns), 0)
	values := op.joinTimedInto(buf, key, left, right)
	if right.vals != nil && !op.accepts(values) {
		right, values = timed{}, op.joinTimedInto(buf, key, left, timed{})
	}
	if right.vals == nil && !op.left {
		return nil
	}
	out := &op.out
	*out = types.Row{Values: values, Time: row.Time, Partition: row.Partition, Offset: row.Offset, NullKey: row.NullKey, Window: row.Window}
	return op.next.Process(out)
}

// lookup returns the table row a stream row joins (nil: none): the
// current one, or for an as-of join the version valid at its time.
func (op *streamTableJoin) lookup(key, vals []any, row *types.Row) (*sideRow, error) {
	if op.asOf == nil {
		return op.table.lookup(key, op.n.Right.Keys, row.Window)
	}
	return op.asOf.get(key, op.n.Right.Keys, vals, row)
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
