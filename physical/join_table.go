package physical

import (
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/types"
)

// tableTableJoin is one side of a primary-key table–table join: a change
// of this side's table updates its store, looks up the other side's row
// and forwards the joined change (new and old result) as Kafka Streams'
// KTableKTable{Inner,Left,Right,Outer}Join processors do. A RIGHT join is
// a LEFT join with the sides swapped (as ksqlDB plans it).
type tableTableJoin struct {
	joiner
	side  planner.JoinSide // which side this operator's input is
	this  *sideStore
	other *sideStore
	next  Processor
}

// outer reports whether this side's rows survive a missing other side
// ("this" is the preserved side of the join).
func (op *tableTableJoin) outer() bool {
	switch op.n.Type {
	case ast.FullJoin:
		return true
	case ast.LeftJoin:
		return op.side == planner.JoinLeft
	case ast.RightJoin:
		return op.side == planner.JoinRight
	}
	return false
}

// otherOuter reports whether the other side is preserved.
func (op *tableTableJoin) otherOuter() bool {
	switch op.n.Type {
	case ast.FullJoin:
		return true
	case ast.LeftJoin:
		return op.side == planner.JoinRight
	case ast.RightJoin:
		return op.side == planner.JoinLeft
	}
	return false
}

func (op *tableTableJoin) Process(row *types.Row) error {
	old, _, err := op.this.update(row)
	if err != nil {
		return err
	}
	this, that := &op.n.Left, &op.n.Right
	if op.side == planner.JoinRight {
		this, that = that, this
	}
	key, _ := joinKeyOf(row, this, op.n.KeyWidth())
	other, err := op.other.lookup(key, that.Keys, row.Window)
	if err != nil {
		return err
	}
	if op.n.Residual != nil {
		return op.residualChange(row, old, other, key)
	}
	change, ok := op.change(row, old, other)
	if !ok {
		return nil
	}
	change.key = key
	return op.forward(row, other, change)
}

// joinChange is the joined (new, old) pair; nil new is a delete.
type joinChange struct {
	key      []any
	newVals  []any // this side's new row (nil: none in the result)
	oldVals  []any // this side's old row
	newOK    bool  // the result has a new row
	oldOK    bool  // the result had an old row
	otherVal []any
}

// change applies the join kind's rules to this side's change.
func (op *tableTableJoin) change(row *types.Row, old, other *sideRow) (joinChange, bool) {
	var c joinChange
	if other != nil {
		c.otherVal = withTime(other.values, other.time, row.Window)
	}
	newVals := withTime(row.Values, row.Time, row.Window)
	if row.Tombstone {
		newVals = nil
	}
	var oldVals []any
	if old != nil {
		oldVals = withTime(old.values, old.time, row.Window)
	}
	switch {
	case other == nil && !op.outer():
		return c, false // inner (or the other side preserved): nothing to join with
	case other == nil && newVals == nil && oldVals == nil:
		return c, false
	case op.otherOuter() && !op.outer():
		// the non-preserved side of a LEFT/RIGHT join: the other row stays,
		// joined with this side's new row or with null
		c.newVals, c.newOK = newVals, true
		c.oldVals, c.oldOK = oldVals, true
		return c, true
	}
	c.newVals, c.newOK = newVals, newVals != nil
	c.oldVals, c.oldOK = oldVals, oldVals != nil
	if op.n.Type == ast.FullJoin && other != nil {
		c.newOK, c.oldOK = true, true
	}
	return c, true
}

// forward emits the joined change: time = max of both sides' times.
func (op *tableTableJoin) forward(row *types.Row, other *sideRow, c joinChange) error {
	ts := row.Time
	if other != nil && other.time > ts {
		ts = other.time
	}
	out := &types.Row{Time: ts, Partition: row.Partition, Offset: row.Offset, HasOld: true, Window: row.Window}
	if c.oldOK {
		out.Old = op.pair(c.key, c.oldVals, c.otherVal)
	}
	if !c.newOK {
		out.Tombstone = true
		out.Values = op.join(c.key, nil, nil)
		return op.next.Process(out)
	}
	out.Values = op.pair(c.key, c.newVals, c.otherVal)
	return op.next.Process(out)
}

// pair joins this side's values with the other side's, in the join's
// left/right order.
func (op *tableTableJoin) pair(key []any, this, other []any) []any {

	if op.side == planner.JoinLeft {
		return op.join(key, this, other)
	}
	return op.join(key, other, this)
}

var _ Processor = (*tableTableJoin)(nil)
