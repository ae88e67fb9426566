package functions

import (
	"fmt"

	"github.com/sqlstream/sqlstream/sql/types"
)

// orderedTypes are the types MIN, MAX, TOPK and TOPKDISTINCT accept.
var orderedTypes = []string{"INTEGER", "BIGINT", "DOUBLE", "DECIMAL", "STRING", "BYTES", "DATE", "TIME", "TIMESTAMP"}

func extremeAggDef(name, desc string, want int) AggregateDef {
	d := AggregateDef{Name: name, Description: desc}
	for _, t := range orderedTypes {
		d.Overloads = append(d.Overloads, AggregateOverload{
			Sig: fmt.Sprintf("%s(%s val) %s", name, t, t),
			New: func(args []*types.Type, _ []any) (Aggregator, error) {
				return &extremeAgg{typ: args[0], want: want}, nil
			},
		})
	}
	return d
}

func minDef() AggregateDef {
	return extremeAggDef("MIN", "Returns the minimum non-NULL value of the column, or NULL when there is none.", -1)
}

func maxDef() AggregateDef {
	return extremeAggDef("MAX", "Returns the maximum non-NULL value of the column, or NULL when there is none.", 1)
}

// extremeAgg is MIN (want -1) or MAX (want 1). State: the input type,
// NULL until a non-NULL value arrives.
type extremeAgg struct {
	typ  *types.Type
	want int
}

var _ Merger = (*extremeAgg)(nil)

func (e *extremeAgg) StateType() *types.Type               { return e.typ }
func (e *extremeAgg) ReturnType() *types.Type              { return e.typ }
func (e *extremeAgg) Init() any                            { return nil }
func (e *extremeAgg) Add(acc any, args []any) (any, error) { return e.Merge(acc, args[0]) }
func (e *extremeAgg) Result(acc any) (any, error)          { return acc, nil }

func (e *extremeAgg) Merge(a, b any) (any, error) {
	switch {
	case b == nil:
		return a, nil
	case a == nil:
		return b, nil
	}
	if c, _ := types.CompareValues(b, a); c == e.want {
		return b, nil
	}
	return a, nil
}

// isOrdered reports whether values of t can be compared.
func isOrdered(t *types.Type) bool {
	switch t.Kind {
	case types.KindInteger, types.KindBigint, types.KindDouble, types.KindDecimal, types.KindString,
		types.KindBytes, types.KindDate, types.KindTime, types.KindTimestamp:
		return true
	}
	return false
}
