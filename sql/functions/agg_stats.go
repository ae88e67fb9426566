package functions

import (
	"math"

	"github.com/sqlstream/sqlstream/sql/types"
)

// The standard deviation aggregates use the Youngs-Cramer update of the
// sum of squared deviations (M2), with the integer arithmetic of
// ksqlDB's implementations (sums and deltas wrap on overflow, and
// STDDEV_SAMP merges integer means with integer division) so results
// match it bit for bit.
//
// ksqlDB's STDDEV_SAMP returns the sample variance (M2 / (n-1)) while its
// older alias-like STDDEV_SAMPLE returns the square root of it; both are
// kept as they are.

// stddevAgg is STDDEV_SAMP or STDDEV_SAMPLE over sums of Go type S with a
// count of Go type C. State: STRUCT<SUM S, COUNT C, M2 DOUBLE>.
type stddevAgg[S number, C int32 | int64] struct {
	state *types.Type
	sqrt  bool
	delta func(x, sum S, count C) float64
	inner func(s1 S, c1 C, s2 S, c2 C) float64
}

var (
	_ Undoer = (*stddevAgg[int32, int32])(nil)
	_ Merger = (*stddevAgg[int32, int32])(nil)
)

func (s *stddevAgg[S, C]) StateType() *types.Type  { return s.state }
func (s *stddevAgg[S, C]) ReturnType() *types.Type { return types.DoubleType }
func (s *stddevAgg[S, C]) Init() any               { return s.make(0, 0, 0) }

func (s *stddevAgg[S, C]) make(sum S, count C, m2 float64) *types.StructValue {
	return &types.StructValue{Type: s.state, Values: []any{sum, count, m2}}
}

func (s *stddevAgg[S, C]) parts(acc any) (S, C, float64) {
	v, ok := acc.(*types.StructValue)
	if !ok || v == nil {
		return 0, 0, 0
	}
	m2, _ := v.Values[2].(float64)
	return numOf[S](v.Values[0]), countOf[C](v.Values[1]), m2
}

func countOf[C int32 | int64](v any) C {
	n, _ := v.(C)
	return n
}

func (s *stddevAgg[S, C]) Add(acc any, args []any) (any, error) {
	if args[0] == nil {
		return acc, nil
	}
	x := args[0].(S)
	sum, n, m2 := s.parts(acc)
	var add float64
	if n > 0 {
		d := s.delta(x, sum, n)
		add = d * d / float64((n+1)*n)
	}
	return s.make(sum+x, n+1, m2+add), nil
}

func (s *stddevAgg[S, C]) Undo(acc any, args []any) (any, error) {
	if args[0] == nil {
		return acc, nil
	}
	x := args[0].(S)
	sum, n, m2 := s.parts(acc)
	var sub float64
	if n-1 > 0 {
		d := s.delta(x, sum, n)
		sub = d * d / float64((n-1)*n)
	}
	return s.make(sum-x, n-1, m2-sub), nil
}

func (s *stddevAgg[S, C]) Merge(a, b any) (any, error) {
	s1, n1, m1 := s.parts(a)
	s2, n2, m2 := s.parts(b)
	m := m1 + m2
	if n1 != 0 && n2 != 0 {
		in := s.inner(s1, n1, s2, n2)
		m += float64(n1*n2) * in * in / float64(n1+n2)
	}
	return s.make(s1+s2, n1+n2, m), nil
}

func (s *stddevAgg[S, C]) Result(acc any) (any, error) {
	_, n, m2 := s.parts(acc)
	if n < 2 {
		return 0.0, nil
	}
	v := m2 / float64(n-1)
	if s.sqrt {
		return math.Sqrt(v), nil
	}
	return v, nil
}

func stddevState(sum, count *types.Type) *types.Type {
	return types.StructOf(types.Field{Name: "SUM", Type: sum}, types.Field{Name: "COUNT", Type: count},
		types.Field{Name: "M2", Type: types.DoubleType})
}

func newStddev[S number, C int32 | int64](sum, count *types.Type, sqrt bool,
	delta func(S, S, C) float64, inner func(S, C, S, C) float64) func([]*types.Type, []any) (Aggregator, error) {
	state := stddevState(sum, count)
	return func([]*types.Type, []any) (Aggregator, error) {
		return &stddevAgg[S, C]{state: state, sqrt: sqrt, delta: delta, inner: inner}, nil
	}
}

func doubleDelta[C int32 | int64](x, sum float64, n C) float64 { return x*float64(n+1) - (sum + x) }

func doubleInner[S number, C int32 | int64](s1 S, c1 C, s2 S, c2 C) float64 {
	return float64(s1)/float64(c1) - float64(s2)/float64(c2)
}

func stddevSampDef() AggregateDef {
	i, b, d := types.IntegerType, types.BigintType, types.DoubleType
	return AggregateDef{
		Name:        "STDDEV_SAMP",
		Description: "Returns the sample variance of the column (ksqlDB's STDDEV_SAMP: M2 / (n-1), without the square root); 0.0 for fewer than two values. Applicable only to numeric types.",
		Overloads: []AggregateOverload{
			{Sig: "STDDEV_SAMP(INTEGER val) DOUBLE", New: newStddev(i, i, false,
				func(x, sum, n int32) float64 { return float64(x*(n+1) - (sum + x)) },
				func(s1, c1, s2, c2 int32) float64 { return float64(s1/c1 - s2/c2) })},
			{Sig: "STDDEV_SAMP(BIGINT val) DOUBLE", New: newStddev(b, i, false,
				func(x, sum int64, n int32) float64 { return float64(x*int64(n+1) - (sum + x)) },
				func(s1 int64, c1 int32, s2 int64, c2 int32) float64 { return float64(s1/int64(c1) - s2/int64(c2)) })},
			{Sig: "STDDEV_SAMP(DOUBLE val) DOUBLE", New: newStddev(d, i, false, doubleDelta[int32], doubleInner[float64, int32])},
		},
	}
}

func stddevSampleDef() AggregateDef {
	i, b, d := types.IntegerType, types.BigintType, types.DoubleType
	return AggregateDef{
		Name:        "STDDEV_SAMPLE",
		Description: "Returns the sample standard deviation of the column; 0.0 for fewer than two values. Applicable only to numeric types.",
		Overloads: []AggregateOverload{
			{Sig: "STDDEV_SAMPLE(INTEGER val) DOUBLE", New: newStddev(i, b, true,
				func(x, sum int32, n int64) float64 { return float64(int64(x)*(n+1) - int64(sum+x)) },
				doubleInner[int32, int64])},
			{Sig: "STDDEV_SAMPLE(BIGINT val) DOUBLE", New: newStddev(b, b, true,
				func(x, sum, n int64) float64 { return float64(x*(n+1) - (sum + x)) },
				doubleInner[int64, int64])},
			{Sig: "STDDEV_SAMPLE(DOUBLE val) DOUBLE", New: newStddev(d, b, true, doubleDelta[int64], doubleInner[float64, int64])},
		},
	}
}

func correlationDef() AggregateDef {
	return AggregateDef{
		Name:        "CORRELATION",
		Description: "Computes the Pearson correlation coefficient between two columns of data. Rows where either is NULL are ignored; NaN until the data varies.",
		Overloads: []AggregateOverload{{
			Sig: "CORRELATION(DOUBLE x, DOUBLE y) DOUBLE",
			New: func([]*types.Type, []any) (Aggregator, error) { return correlationAgg{}, nil },
		}},
	}
}

// correlationAgg is CORRELATION. State: STRUCT<X_SUM, Y_SUM,
// X_SQUARED_SUM, Y_SQUARED_SUM, XY_SUM DOUBLE, COUNT BIGINT>.
type correlationAgg struct{}

var (
	_ Undoer = correlationAgg{}
	_ Merger = correlationAgg{}
)

var correlationState = types.StructOf(
	types.Field{Name: "X_SUM", Type: types.DoubleType}, types.Field{Name: "Y_SUM", Type: types.DoubleType},
	types.Field{Name: "X_SQUARED_SUM", Type: types.DoubleType}, types.Field{Name: "Y_SQUARED_SUM", Type: types.DoubleType},
	types.Field{Name: "XY_SUM", Type: types.DoubleType}, types.Field{Name: "COUNT", Type: types.BigintType})

// corrSums are the five running sums and the count.
type corrSums struct {
	x, y, xx, yy, xy float64
	n                int64
}

func (correlationAgg) StateType() *types.Type  { return correlationState }
func (correlationAgg) ReturnType() *types.Type { return types.DoubleType }
func (c correlationAgg) Init() any             { return c.make(corrSums{}) }

func (correlationAgg) make(s corrSums) *types.StructValue {
	return &types.StructValue{Type: correlationState, Values: []any{s.x, s.y, s.xx, s.yy, s.xy, s.n}}
}

func (correlationAgg) parts(acc any) corrSums {
	v, ok := acc.(*types.StructValue)
	if !ok || v == nil {
		return corrSums{}
	}
	f := func(i int) float64 { x, _ := v.Values[i].(float64); return x }
	return corrSums{f(0), f(1), f(2), f(3), f(4), asInt64(v.Values[5])}
}

func (c correlationAgg) step(acc any, args []any, sign float64) (any, error) {
	if args[0] == nil || args[1] == nil {
		return acc, nil
	}
	x, y := args[0].(float64), args[1].(float64)
	s := c.parts(acc)
	s = corrSums{s.x + sign*x, s.y + sign*y, s.xx + sign*(x*x), s.yy + sign*(y*y), s.xy + sign*(x*y), s.n + int64(sign)}
	return c.make(s), nil
}

func (c correlationAgg) Add(acc any, args []any) (any, error)  { return c.step(acc, args, 1) }
func (c correlationAgg) Undo(acc any, args []any) (any, error) { return c.step(acc, args, -1) }

func (c correlationAgg) Merge(a, b any) (any, error) {
	p, q := c.parts(a), c.parts(b)
	return c.make(corrSums{p.x + q.x, p.y + q.y, p.xx + q.xx, p.yy + q.yy, p.xy + q.xy, p.n + q.n}), nil
}

func (c correlationAgg) Result(acc any) (any, error) {
	s := c.parts(acc)
	if s.n < 2 {
		// ksqlDB's formula gives 0/0 here; say so directly, so sums
		// left inexact by undoing rows cannot fake a correlation.
		return math.NaN(), nil
	}
	n := float64(s.n)
	num := n*s.xy - s.x*s.y
	dx := n*s.xx - s.x*s.x
	dy := n*s.yy - s.y*s.y
	return num / math.Sqrt(dx*dy), nil
}
