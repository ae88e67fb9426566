package functions

import "github.com/sqlstream/sqlstream/sql/types"

func countDef() AggregateDef {
	newCount := func(star bool) func([]*types.Type, []any) (Aggregator, error) {
		return func([]*types.Type, []any) (Aggregator, error) { return &countAgg{star: star}, nil }
	}
	return AggregateDef{
		Name:        "COUNT",
		Description: "Counts the number of rows. When col1 is specified, the count returned is the number of rows where col1 is non-null. When * is specified, the count returned is the total number of rows.",
		Overloads: []AggregateOverload{
			{Sig: "COUNT() BIGINT", New: newCount(true), Description: "Counts all rows."},
			{Sig: "COUNT(T val) BIGINT", New: newCount(false), Description: "Counts the rows where val is not NULL."},
		},
	}
}

// countAgg is COUNT(*) (star) or COUNT(col). State: BIGINT.
type countAgg struct{ star bool }

var (
	_ Undoer = (*countAgg)(nil)
	_ Merger = (*countAgg)(nil)
)

func (c *countAgg) StateType() *types.Type  { return types.BigintType }
func (c *countAgg) ReturnType() *types.Type { return types.BigintType }
func (c *countAgg) Init() any               { return int64(0) }

func (c *countAgg) counts(args []any) bool { return c.star || len(args) > 0 && args[0] != nil }

func (c *countAgg) Add(acc any, args []any) (any, error) {
	if !c.counts(args) {
		return acc, nil
	}
	return asInt64(acc) + 1, nil
}

func (c *countAgg) Undo(acc any, args []any) (any, error) {
	if !c.counts(args) {
		return acc, nil
	}
	return asInt64(acc) - 1, nil
}

func (c *countAgg) Merge(a, b any) (any, error) { return asInt64(a) + asInt64(b), nil }

// Result is the accumulator itself, already a BIGINT in an interface
// (boxing it again would be an allocation per update past 255).
func (c *countAgg) Result(acc any) (any, error) {
	if _, ok := acc.(int64); ok {
		return acc, nil
	}
	return int64(0), nil
}

// asInt64 reads a BIGINT accumulator; a NULL one counts as 0.
func asInt64(v any) int64 {
	n, _ := v.(int64)
	return n
}
