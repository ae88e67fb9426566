package functions

// registerBuiltins registers every built-in function: the categories in
// this package's files plus registerScalarDefs (the families written as
// ScalarDef tables).
func registerBuiltins(r *Registry) {
	registerConditional(r)
	registerString(r)
	registerMath(r)
	registerDateTime(r)
	registerScalarDefs(r)
	r.MustAddScalar(asValueDef())
	registerTableFunctions(r)
	declareAggregates(r)
}

// Fn is the implementation type of an overload.
type Fn = func(args []any) (any, error)

// Adapters from typed Go functions to Fn. Arguments arrive converted to
// the parameter types, so the type assertions cannot fail; NULLs never
// reach them unless the overload is NullAware.

func call1[A any](f func(A) (any, error)) Fn {
	return func(args []any) (any, error) { return f(args[0].(A)) }
}

func call2[A, B any](f func(A, B) (any, error)) Fn {
	return func(args []any) (any, error) { return f(args[0].(A), args[1].(B)) }
}

func call3[A, B, C any](f func(A, B, C) (any, error)) Fn {
	return func(args []any) (any, error) { return f(args[0].(A), args[1].(B), args[2].(C)) }
}

// pure adapts a function that cannot fail.
func pure[A, R any](f func(A) R) Fn {
	return func(args []any) (any, error) { return f(args[0].(A)), nil }
}

func pure2[A, B, R any](f func(A, B) R) Fn {
	return func(args []any) (any, error) { return f(args[0].(A), args[1].(B)), nil }
}

func pure3[A, B, C, R any](f func(A, B, C) R) Fn {
	return func(args []any) (any, error) { return f(args[0].(A), args[1].(B), args[2].(C)), nil }
}

// declareAggregates records the built-in aggregate functions (those
// NewAggregates implements; Aggregates.DeclareIn keeps custom ones in
// sync) so that scalar contexts can reject them clearly.
func declareAggregates(r *Registry) {
	for _, n := range []string{
		"ATTR", "AVG", "COLLECT_LIST", "COLLECT_SET", "CORRELATION", "COUNT", "COUNT_DISTINCT",
		"EARLIEST_BY_OFFSET", "HISTOGRAM", "LATEST_BY_OFFSET", "MAX", "MIN", "STDDEV_SAMP",
		"STDDEV_SAMPLE", "SUM", "SUM_LIST", "TOPK", "TOPKDISTINCT",
	} {
		r.DeclareFunction(n, Aggregate, CatAggregate)
	}
}
