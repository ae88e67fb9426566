package functions

import "github.com/sqlstream/sqlstream/sql/types"

// AggregateDef describes one aggregate function (a UDAF) and its overloads.
type AggregateDef struct {
	Name        string // upper case
	Description string
	Overloads   []AggregateOverload
}

// AggregateOverload is one signature of an aggregate function.
//
// Sig uses the scalar signature language (see Overload). Arguments are the
// per-row column arguments first, then InitArgs trailing constant
// arguments that configure the function (e.g. TOPK(col, 3): InitArgs 1);
// the planner requires those to be literals and passes their values to
// New. COUNT(*) resolves to the zero-argument overload "COUNT() BIGINT".
//
// New builds the aggregator for the resolved argument types and the
// constant init arguments.
type AggregateOverload struct {
	Sig         string
	InitArgs    int
	Description string
	New         func(args []*types.Type, init []any) (Aggregator, error)
}

// Aggregator computes one aggregate over the rows of a group. The
// accumulator is a plain value of StateType (in the types package's Go
// representation) so state stores can serialize it and changelogs can
// restore it; Add, Undo and Merge return the new accumulator and may
// reuse the old one's memory only when it is not shared.
//
// Add is called for each row with its column arguments (NULLs included:
// each function decides, as ksqlDB's do; most ignore NULL). Result maps
// the accumulator to the output value of ReturnType.
type Aggregator interface {
	StateType() *types.Type
	ReturnType() *types.Type
	Init() any
	Add(acc any, args []any) (any, error)
	Result(acc any) (any, error)
}

// Undoer is implemented by aggregators that can remove a row again, which
// aggregations over a TABLE need when a row changes group or is deleted
// (Kafka Streams' subtractor). Functions without it are rejected on table
// sources with ksqlDB's error.
type Undoer interface {
	Undo(acc any, args []any) (any, error)
}

// OwnedAdder is implemented by aggregators with large accumulators
// (COUNT_DISTINCT's exact set and sketch), which Add copies on every
// change because the old state may be shared. AddOwned is Add for an
// accumulator whose memory the caller owns: nothing else holds it, and
// nothing will read it as the state before this row (not a store, a
// cache's write-down, a changelog record or a row handed out), so it
// may write that memory instead of copying it. It cannot fail (so a
// caller that runs it after every call that can has nothing to undo),
// and returns acc itself when the state did not change, else a new
// value (the accumulator's identity tells a change) whose memory the
// caller owns in turn. Of such an aggregator, Add's result is a value
// whose memory the caller owns too whenever it is not acc.
type OwnedAdder interface {
	AddOwned(acc any, args []any) any
}

// OwnedAdderOf is agg's OwnedAdder, when it has one and its call's
// arguments need no conversion (a conversion can fail).
func OwnedAdderOf(agg Aggregator) (OwnedAdder, bool) {
	var c *callAgg
	switch w := agg.(type) {
	case *callAgg:
		c = w
	case callMerge:
		c = w.callAgg
	case callUndo:
		c = w.callAgg
	case callUndoMerge:
		c = w.callAgg
	default:
		o, ok := agg.(OwnedAdder)
		return o, ok
	}
	if c.converts() {
		return nil, false
	}
	o, ok := c.Aggregator.(OwnedAdder)
	if !ok {
		return nil, false
	}
	return ownedCall{c, o}, true
}

// ownedCall is a call's OwnedAdder: its arguments without the init ones.
type ownedCall struct {
	c *callAgg
	o OwnedAdder
}

func (w ownedCall) AddOwned(acc any, args []any) any {
	if len(args) == w.c.total && w.c.total > len(w.c.conv) {
		args = args[:len(w.c.conv)]
	}
	return w.o.AddOwned(acc, args)
}

// Merger is implemented by aggregators whose accumulators can be merged,
// which session windows need when a record bridges two sessions.
type Merger interface {
	Merge(a, b any) (any, error)
}
