package functions

import (
	"fmt"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/types"
)

// number is the Go type of INTEGER, BIGINT and DOUBLE values. Integer
// arithmetic wraps on overflow, as Java's does in ksqlDB.
type number interface{ int32 | int64 | float64 }

func sumDef() AggregateDef {
	return AggregateDef{
		Name:        "SUM",
		Description: "Sums the column values. NULLs are ignored; the sum of no values is 0.",
		Overloads: []AggregateOverload{
			{Sig: "SUM(INTEGER val) INTEGER", New: newNumSum[int32](types.IntegerType)},
			{Sig: "SUM(BIGINT val) BIGINT", New: newNumSum[int64](types.BigintType)},
			{Sig: "SUM(DOUBLE val) DOUBLE", New: newNumSum[float64](types.DoubleType)},
			{Sig: "SUM(DECIMAL val) DECIMAL", New: newDecimalSum,
				Description: "Sums DECIMAL values into the column's DECIMAL type; a sum that needs more digits is an error."},
		},
	}
}

func newNumSum[T number](t *types.Type) func([]*types.Type, []any) (Aggregator, error) {
	return func([]*types.Type, []any) (Aggregator, error) { return &numSum[T]{typ: t}, nil }
}

// numSum is SUM over INTEGER, BIGINT or DOUBLE. State: the input type.
type numSum[T number] struct{ typ *types.Type }

var (
	_ Undoer = (*numSum[int32])(nil)
	_ Merger = (*numSum[int32])(nil)
)

func (s *numSum[T]) StateType() *types.Type  { return s.typ }
func (s *numSum[T]) ReturnType() *types.Type { return s.typ }
func (s *numSum[T]) Init() any               { return T(0) }

func (s *numSum[T]) Add(acc any, args []any) (any, error) {
	if args[0] == nil {
		return acc, nil
	}
	return numOf[T](acc) + args[0].(T), nil
}

func (s *numSum[T]) Undo(acc any, args []any) (any, error) {
	if args[0] == nil {
		return acc, nil
	}
	return numOf[T](acc) - args[0].(T), nil
}

func (s *numSum[T]) Merge(a, b any) (any, error) { return numOf[T](a) + numOf[T](b), nil }

// Result is the accumulator itself when it holds a T (not boxed again:
// an allocation per update), else 0.
func (s *numSum[T]) Result(acc any) (any, error) {
	if _, ok := acc.(T); ok {
		return acc, nil
	}
	return T(0), nil
}

// numOf reads a numeric accumulator; NULL reads as 0.
func numOf[T number](v any) T {
	n, _ := v.(T)
	return n
}

// decimalSum is SUM over DECIMAL(p, s): the sum keeps the type and
// rounds to p digits; a sum of p-s or more integer digits fails.
// State: DECIMAL(p, s).
type decimalSum struct {
	typ *types.Type
	ctx *apd.Context
	max *apd.Decimal // 10^(p-s)
}

var (
	_ Undoer = (*decimalSum)(nil)
	_ Merger = (*decimalSum)(nil)
)

func newDecimalSum(args []*types.Type, _ []any) (Aggregator, error) {
	t := args[0]
	ctx := apd.BaseContext.WithPrecision(uint32(max(t.Precision, 1)))
	ctx.Rounding = apd.RoundHalfUp
	return &decimalSum{typ: t, ctx: ctx, max: apd.New(1, int32(t.Precision-t.Scale))}, nil
}

func (s *decimalSum) StateType() *types.Type  { return s.typ }
func (s *decimalSum) ReturnType() *types.Type { return s.typ }
func (s *decimalSum) Init() any               { return apd.New(0, -int32(s.typ.Scale)) }

func (s *decimalSum) Add(acc any, args []any) (any, error) {
	if args[0] == nil {
		return acc, nil
	}
	sum := new(apd.Decimal)
	if _, err := s.ctx.Add(sum, s.decimalOf(acc), s.decimalOf(args[0])); err != nil {
		return nil, err
	}
	var abs apd.Decimal
	if abs.Abs(sum).Cmp(s.max) >= 0 {
		return nil, fmt.Errorf("Numeric field overflow: A field with precision %d and scale %d must round to an absolute value less than 10^%d. Got %s",
			s.typ.Precision, s.typ.Scale, s.typ.Precision-s.typ.Scale, sum.Text('f'))
	}
	return s.rescale(sum)
}

func (s *decimalSum) Undo(acc any, args []any) (any, error) {
	if args[0] == nil {
		return acc, nil
	}
	return s.op(s.ctx.Sub, acc, args[0])
}

func (s *decimalSum) Merge(a, b any) (any, error) { return s.op(s.ctx.Add, a, b) }

func (s *decimalSum) Result(acc any) (any, error) {
	if acc == nil {
		return s.Init(), nil
	}
	return acc, nil
}

type decimalOp func(d, x, y *apd.Decimal) (apd.Condition, error)

// op applies a decimal operation in the type's precision and rescales
// the result to the type's scale.
func (s *decimalSum) op(f decimalOp, a, b any) (*apd.Decimal, error) {
	out := new(apd.Decimal)
	if _, err := f(out, s.decimalOf(a), s.decimalOf(b)); err != nil {
		return nil, err
	}
	return s.rescale(out)
}

// rescale sets d's scale to the type's.
func (s *decimalSum) rescale(d *apd.Decimal) (*apd.Decimal, error) {
	if d.Exponent == -int32(s.typ.Scale) {
		return d, nil
	}
	wide := apd.BaseContext.WithPrecision(uint32(s.typ.Precision + s.typ.Scale + 20))
	wide.Rounding = apd.RoundHalfUp
	if _, err := wide.Quantize(d, d, -int32(s.typ.Scale)); err != nil {
		return nil, err
	}
	return d, nil
}

func (s *decimalSum) decimalOf(v any) *apd.Decimal {
	if d, ok := v.(*apd.Decimal); ok && d != nil {
		return d
	}
	return apd.New(0, 0)
}

func sumListDef() AggregateDef {
	return AggregateDef{
		Name:        "SUM_LIST",
		Description: "Returns the sum of the elements of the arrays in the column. NULL arrays and NULL elements are ignored.",
		Overloads: []AggregateOverload{
			{Sig: "SUM_LIST(ARRAY<INTEGER> val) INTEGER", New: newListSum[int32](types.IntegerType)},
			{Sig: "SUM_LIST(ARRAY<BIGINT> val) BIGINT", New: newListSum[int64](types.BigintType)},
			{Sig: "SUM_LIST(ARRAY<DOUBLE> val) DOUBLE", New: newListSum[float64](types.DoubleType)},
		},
	}
}

func newListSum[T number](t *types.Type) func([]*types.Type, []any) (Aggregator, error) {
	return func([]*types.Type, []any) (Aggregator, error) { return &listSum[T]{numSum[T]{typ: t}}, nil }
}

// listSum is SUM_LIST: SUM over the elements of each array.
type listSum[T number] struct{ numSum[T] }

var _ Undoer = (*listSum[int32])(nil)

func (s *listSum[T]) Add(acc any, args []any) (any, error) {
	return s.numSum.Add(acc, []any{sumElems[T](args[0])})
}

func (s *listSum[T]) Undo(acc any, args []any) (any, error) {
	return s.numSum.Undo(acc, []any{sumElems[T](args[0])})
}

func sumElems[T number](v any) any {
	arr, ok := v.([]any)
	if !ok {
		return nil
	}
	var sum T
	for _, e := range arr {
		if e != nil {
			sum += e.(T)
		}
	}
	return sum
}

func avgDef() AggregateDef {
	return AggregateDef{
		Name:        "AVG",
		Description: "Returns the average value of the column computed as the sum divided by the count. Applicable only to numeric types. NULLs are ignored; the average of no values is 0.0.",
		Overloads: []AggregateOverload{
			{Sig: "AVG(INTEGER val) DOUBLE", New: newAvg[int32](types.IntegerType)},
			{Sig: "AVG(BIGINT val) DOUBLE", New: newAvg[int64](types.BigintType)},
			{Sig: "AVG(DOUBLE val) DOUBLE", New: newAvg[float64](types.DoubleType)},
		},
	}
}

func newAvg[T number](t *types.Type) func([]*types.Type, []any) (Aggregator, error) {
	state := types.StructOf(types.Field{Name: "SUM", Type: t}, types.Field{Name: "COUNT", Type: types.BigintType})
	return func([]*types.Type, []any) (Aggregator, error) { return &avgAgg[T]{state: state}, nil }
}

// avgAgg is AVG. State: STRUCT<SUM input type, COUNT BIGINT>; the sum
// wraps on integer overflow as ksqlDB's does.
type avgAgg[T number] struct{ state *types.Type }

var (
	_ Undoer = (*avgAgg[int32])(nil)
	_ Merger = (*avgAgg[int32])(nil)
)

func (a *avgAgg[T]) StateType() *types.Type  { return a.state }
func (a *avgAgg[T]) ReturnType() *types.Type { return types.DoubleType }
func (a *avgAgg[T]) Init() any               { return a.make(0, 0) }

func (a *avgAgg[T]) make(sum T, count int64) *types.StructValue {
	return &types.StructValue{Type: a.state, Values: []any{sum, count}}
}

func (a *avgAgg[T]) parts(acc any) (T, int64) {
	s, ok := acc.(*types.StructValue)
	if !ok || s == nil {
		return 0, 0
	}
	return numOf[T](s.Values[0]), asInt64(s.Values[1])
}

func (a *avgAgg[T]) Add(acc any, args []any) (any, error) {
	if args[0] == nil {
		return acc, nil
	}
	sum, n := a.parts(acc)
	return a.make(sum+args[0].(T), n+1), nil
}

func (a *avgAgg[T]) Undo(acc any, args []any) (any, error) {
	if args[0] == nil {
		return acc, nil
	}
	sum, n := a.parts(acc)
	return a.make(sum-args[0].(T), n-1), nil
}

func (a *avgAgg[T]) Merge(x, y any) (any, error) {
	s1, n1 := a.parts(x)
	s2, n2 := a.parts(y)
	return a.make(s1+s2, n1+n2), nil
}

func (a *avgAgg[T]) Result(acc any) (any, error) {
	sum, n := a.parts(acc)
	if n == 0 {
		return 0.0, nil
	}
	return float64(sum) / float64(n), nil
}
