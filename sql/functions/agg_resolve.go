package functions

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sqlstream/sqlstream/sql/types"
)

// Resolve chooses the overload of aggregate function name for a call and
// builds its aggregator.
//
// args holds the types of all the call's arguments, in order (UNKNOWN for
// an untyped NULL; none for COUNT(*)). init holds the values of the
// call's trailing arguments that are literal constants: the longest run of
// literals that ends the argument list, in order (so TOPK(x, 3) passes
// init [int32(3)]; SUM(x) passes none; SUM(2) passes [int32(2)]).
//
// Overloads are chosen like scalar ones (see Registry.Resolve): an exact
// match beats one that needs implicit widening (INTEGER → BIGINT →
// DECIMAL → DOUBLE), then non-variadic, more parameters and fewer
// generics win. The chosen overload's last InitArgs arguments must be
// literals; their values are passed to the overload's New.
//
// The aggregator returned accepts in Add and Undo either the column
// arguments only (the arguments before the init arguments) or all the
// arguments of the call; values are in the types given in args and are
// widened to the parameter types here.
func (a *Aggregates) Resolve(name string, args []*types.Type, init []any) (Aggregator, error) {
	up := strings.ToUpper(name)
	e, ok := a.defs[up]
	if !ok {
		return nil, &UnknownFunctionError{Name: up}
	}
	res, err := a.sigs.Resolve(sigName(up), args)
	if err != nil {
		return nil, e.resolveError(up, args, err)
	}
	i := slices.Index(e.markers, res.Return)
	if i < 0 {
		return nil, fmt.Errorf("aggregate %s: resolved to an unknown overload", up)
	}
	return a.build(up, e.def.Overloads[i], args, res.Params, init)
}

// resolveError restates an overload resolution error in the aggregate's
// own name.
func (e *aggregateEntry) resolveError(name string, args []*types.Type, err error) error {
	var no *NoOverloadError
	var amb *AmbiguousError
	switch {
	case errors.As(err, &no):
		return &AggregateNoOverloadError{Name: name, Args: args, Candidates: e.candidates()}
	case errors.As(err, &amb):
		return &AmbiguousError{Name: name, Args: args}
	}
	return err
}

func (a *Aggregates) build(name string, o AggregateOverload, args, params []*types.Type, init []any) (Aggregator, error) {
	cols := len(args) - o.InitArgs
	if len(init) < o.InitArgs {
		return nil, &ParamNotLiteralError{Name: name, Index: cols + 1}
	}
	untyped := firstUnknown(params[:cols])
	agg, err := o.New(params, init[len(init)-o.InitArgs:])
	var ie *InitArgError
	switch {
	case errors.As(err, &ie):
		return nil, &InitArgError{Name: name, Index: cols + ie.Index, Reason: ie.Reason}
	case err != nil && untyped > 0:
		return nil, &UntypedNullError{Name: name, Index: untyped}
	case err != nil:
		return nil, err
	case untyped > 0 && (containsUnknown(agg.StateType()) || containsUnknown(agg.ReturnType())):
		return nil, &UntypedNullError{Name: name, Index: untyped}
	}
	return wrapCall(agg, args[:cols], params[:cols], len(args)), nil
}

// firstUnknown returns the 1-based position of the first parameter that
// is or contains UNKNOWN, or 0.
func firstUnknown(params []*types.Type) int {
	for i, p := range params {
		if containsUnknown(p) {
			return i + 1
		}
	}
	return 0
}

// containsUnknown reports whether t is or contains UNKNOWN (an untyped
// NULL the overload could not type).
func containsUnknown(t *types.Type) bool {
	switch t.Kind {
	case types.KindUnknown:
		return true
	case types.KindArray:
		return containsUnknown(t.Elem)
	case types.KindMap:
		return containsUnknown(t.Key) || containsUnknown(t.Elem)
	case types.KindStruct:
		for _, f := range t.Fields {
			if containsUnknown(f.Type) {
				return true
			}
		}
	}
	return false
}

// candidates renders every overload's signature for error messages.
func (e *aggregateEntry) candidates() []string {
	out := make([]string, len(e.def.Overloads))
	for i, o := range e.def.Overloads {
		out[i] = o.Sig
	}
	return out
}

// AggregateNoOverloadError says no overload of an aggregate function
// accepts the argument types (or their number); Candidates lists the
// signatures that exist.
type AggregateNoOverloadError struct {
	Name       string
	Args       []*types.Type
	Candidates []string
}

func (e *AggregateNoOverloadError) Error() string {
	return fmt.Sprintf("Function '%s' does not accept parameters (%s). Valid alternatives are: %s",
		KsqlSpelling(e.Name), argList(e.Args), strings.Join(e.Candidates, ", "))
}

// ParamNotLiteralError says an argument that configures an aggregate
// (TOPK's k, LATEST_BY_OFFSET's n or ignoreNulls, …) is not a literal.
// Index is 1-based; the caller may set Expr to the argument's SQL text.
type ParamNotLiteralError struct {
	Name  string
	Index int
	Expr  string
}

func (e *ParamNotLiteralError) Error() string {
	msg := fmt.Sprintf("Parameter %d passed to function %s must be a literal constant", e.Index, e.Name)
	if e.Expr != "" {
		msg += fmt.Sprintf(", but was expression: '%s'", e.Expr)
	}
	return msg
}

// InitArgError says a literal argument that configures an aggregate has a
// value the function cannot use. Index is 1-based; an overload's New
// counts it among the init arguments and Resolve turns it into the
// argument position.
type InitArgError struct {
	Name   string
	Index  int
	Reason string
}

func (e *InitArgError) Error() string {
	return fmt.Sprintf("Parameter %d passed to function %s is invalid: %s", e.Index, e.Name, e.Reason)
}

// UntypedNullError says an aggregate's column argument is an untyped NULL
// whose type the function needs (for its state or result) but cannot
// infer. Index is 1-based.
type UntypedNullError struct {
	Name  string
	Index int
}

func (e *UntypedNullError) Error() string {
	return fmt.Sprintf("Parameter %d passed to function %s is an untyped NULL; CAST it to a type", e.Index, e.Name)
}
