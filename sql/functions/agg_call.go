package functions

import (
	"fmt"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/types"
)

// callAgg adapts a resolved aggregator to its call: it drops the init
// arguments when the caller passes all arguments, and widens numeric
// column arguments to the overload's parameter types.
type callAgg struct {
	Aggregator
	total int                      // arguments of the call, init ones included
	conv  []func(any) (any, error) // per column argument; nil when none needed
}

func (c *callAgg) columns(args []any) ([]any, error) {
	if len(args) == c.total && c.total > len(c.conv) {
		args = args[:len(c.conv)]
	}
	if len(args) != len(c.conv) {
		return nil, fmt.Errorf("aggregate called with %d arguments, want %d", len(args), len(c.conv))
	}
	if !c.converts() {
		return args, nil
	}
	out := make([]any, len(args))
	for i, v := range args {
		w, err := convertArg(c.conv[i], v)
		if err != nil {
			return nil, err
		}
		out[i] = w
	}
	return out, nil
}

func (c *callAgg) converts() bool {
	for _, f := range c.conv {
		if f != nil {
			return true
		}
	}
	return false
}

func convertArg(f func(any) (any, error), v any) (any, error) {
	if f == nil || v == nil {
		return v, nil
	}
	return f(v)
}

func (c *callAgg) Add(acc any, args []any) (any, error) {
	cols, err := c.columns(args)
	if err != nil {
		return nil, err
	}
	return c.Aggregator.Add(acc, cols)
}

// undo calls the wrapped aggregator's Undo.
func (c *callAgg) undo(u Undoer, acc any, args []any) (any, error) {
	cols, err := c.columns(args)
	if err != nil {
		return nil, err
	}
	return u.Undo(acc, cols)
}

// The wrapper keeps exactly the optional interfaces of the aggregator.
type (
	callUndo struct {
		*callAgg
		u Undoer
	}
	callMerge struct {
		*callAgg
		Merger
	}
	callUndoMerge struct {
		*callAgg
		u Undoer
		Merger
	}
)

func (c callUndo) Undo(acc any, args []any) (any, error)      { return c.undo(c.u, acc, args) }
func (c callUndoMerge) Undo(acc any, args []any) (any, error) { return c.undo(c.u, acc, args) }

var (
	_ Undoer = callUndo{}
	_ Merger = callMerge{}
	_ Undoer = callUndoMerge{}
	_ Merger = callUndoMerge{}
)

func wrapCall(agg Aggregator, args, params []*types.Type, total int) Aggregator {
	c := &callAgg{Aggregator: agg, total: total, conv: make([]func(any) (any, error), len(params))}
	for i, p := range params {
		c.conv[i] = widener(args[i], p)
	}
	u, isUndo := agg.(Undoer)
	m, isMerge := agg.(Merger)
	switch {
	case isUndo && isMerge:
		return callUndoMerge{c, u, m}
	case isUndo:
		return callUndo{c, u}
	case isMerge:
		return callMerge{c, m}
	}
	return c
}

// widener returns the conversion of a numeric value of type from to the
// wider numeric type to, or nil when none is needed.
func widener(from, to *types.Type) func(any) (any, error) {
	if from.Kind == to.Kind || !from.Kind.IsNumeric() || !to.Kind.IsNumeric() {
		return nil
	}
	switch to.Kind {
	case types.KindBigint:
		return func(v any) (any, error) { return toInt64(v) }
	case types.KindDecimal:
		return func(v any) (any, error) { return toDecimal(v) }
	case types.KindDouble:
		return func(v any) (any, error) { return toFloat64(v) }
	}
	return nil
}

func toInt64(v any) (any, error) {
	switch x := v.(type) {
	case int32:
		return int64(x), nil
	case int64:
		return x, nil
	}
	return nil, fmt.Errorf("cannot widen %T to BIGINT", v)
}

func toDecimal(v any) (any, error) {
	switch x := v.(type) {
	case int32:
		return apd.New(int64(x), 0), nil
	case int64:
		return apd.New(x, 0), nil
	case *apd.Decimal:
		return x, nil
	}
	return nil, fmt.Errorf("cannot widen %T to DECIMAL", v)
}

func toFloat64(v any) (any, error) {
	switch x := v.(type) {
	case int32:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case float64:
		return x, nil
	case *apd.Decimal:
		return x.Float64()
	}
	return nil, fmt.Errorf("cannot widen %T to DOUBLE", v)
}
