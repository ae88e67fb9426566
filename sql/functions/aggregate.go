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

// Merger is implemented by aggregators whose accumulators can be merged,
// which session windows need when a record bridges two sessions.
type Merger interface {
	Merge(a, b any) (any, error)
}
