package physical

import "github.com/sqlstream/sqlstream/sql/types"

// residualChange is a table–table change of a join with a residual
// condition (ON … AND l.x > r.y). The result of one key is computed for
// this side's old row and for its new row against the other side's
// current row, each as its own join: a pair the residual rejects is no
// match, so a preserved row is joined with nulls and an inner result
// disappears. The change forwards (new result, old result); a missing
// new result is a tombstone (an inner join retracts), and when neither
// exists nothing is sent. FULL joins take no residual (the planner
// refuses it: a rejected pair would be two rows of one key).
func (op *tableTableJoin) residualChange(row *types.Row, old, other *sideRow, key []any) error {
	var otherVals, oldVals []any
	if other != nil {
		otherVals = withTime(other.values, other.time, row.Window)
	}
	if old != nil {
		oldVals = withTime(old.values, old.time, row.Window)
	}
	newVals := withTime(row.Values, row.Time, row.Window)
	if row.Tombstone {
		newVals = nil
	}
	newOut, newOK := op.result(key, newVals, otherVals)
	oldOut, oldOK := op.result(key, oldVals, otherVals)
	if !newOK && !oldOK {
		return nil
	}
	ts := row.Time
	if other != nil {
		ts = max(ts, other.time)
	}
	out := &types.Row{Time: ts, Partition: row.Partition, Offset: row.Offset, HasOld: true, Values: newOut, Window: row.Window}
	if oldOK {
		out.Old = oldOut
	}
	if !newOK {
		out.Tombstone, out.Values = true, op.join(key, nil, nil)
	}
	return op.next.Process(out)
}

// result is the join's row for this side's row and the other's (either
// nil: missing), and whether there is one.
func (op *tableTableJoin) result(key, this, other []any) ([]any, bool) {
	if this != nil && other != nil {
		if out := op.pair(key, this, other); op.accepts(out) {
			return out, true
		}
	}
	switch {
	case this != nil && op.outer():
		return op.pair(key, this, nil), true
	case other != nil && op.otherOuter():
		return op.pair(key, nil, other), true
	}
	return nil, false
}
