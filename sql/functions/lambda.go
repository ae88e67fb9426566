package functions

// Lambda is the runtime value of a lambda argument (TRANSFORM, FILTER,
// REDUCE …): it evaluates the lambda body with its parameters bound to
// args (in declaration order) in the row the call is evaluated against.
// A function receiving a lambda declares it as LAMBDA<in…, out> in its
// signature, e.g. "TRANSFORM(ARRAY<T>, LAMBDA<T, U>) ARRAY<U>".
type Lambda func(args ...any) (any, error)
