package functions

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sqlstream/sqlstream/sql/types"
)

// FuncKind says what a registered function name denotes.
type FuncKind uint8

// Function kinds as SHOW FUNCTIONS prints them.
const (
	Scalar FuncKind = iota
	Aggregate
	Table
)

func (k FuncKind) String() string {
	return [...]string{"SCALAR", "AGGREGATE", "TABLE"}[k]
}

// Registry holds the functions a statement may call. It is built once
// (NewRegistry registers the built-ins) and read concurrently afterwards.
type Registry struct {
	scalars map[string]*scalarEntry
	// others names aggregate and table functions; their implementations
	// live in their own registries, this registry only knows their kind so
	// that scalar contexts can reject them clearly.
	others map[string]otherEntry
	tables map[string]*tableEntry
	// volatile names functions whose result changes between calls with
	// the same arguments (RANDOM, UUID, …); they are never constant-folded.
	volatile map[string]bool
	// maxResult is the largest value LPAD, CONCAT, … build, see
	// WithMaxResultBytes.
	maxResult int
}

type scalarEntry struct {
	def  ScalarDef
	sigs []*signature
}

type otherEntry struct {
	kind     FuncKind
	category Category
}

// NewRegistry returns a registry with every built-in function registered.
func NewRegistry(opts ...RegistryOption) *Registry {
	r := &Registry{scalars: map[string]*scalarEntry{}, others: map[string]otherEntry{},
		tables: map[string]*tableEntry{}, volatile: map[string]bool{}, maxResult: DefaultMaxResultBytes}
	for _, o := range opts {
		o(r)
	}
	registerBuiltins(r)
	return r
}

// AddScalar registers a scalar function. Its overloads' signatures are
// parsed here; a malformed signature, a signature naming another function
// or a name already taken is an error.
func (r *Registry) AddScalar(d ScalarDef) error {
	d.Name = strings.ToUpper(d.Name)
	if _, dup := r.scalars[d.Name]; dup {
		return fmt.Errorf("function %s is already registered", d.Name)
	}
	if _, dup := r.Kind(d.Name); dup {
		return fmt.Errorf("function %s is already registered", d.Name)
	}
	e := &scalarEntry{def: d}
	for _, o := range d.Overloads {
		s, err := parseSignature(o.Sig)
		if err != nil {
			return err
		}
		if s.name != d.Name {
			return fmt.Errorf("signature %q does not belong to function %s", o.Sig, d.Name)
		}
		if o.Fn == nil {
			return fmt.Errorf("signature %q has no implementation", o.Sig)
		}
		e.sigs = append(e.sigs, s)
	}
	r.scalars[d.Name] = e
	return nil
}

// MustAddScalar is AddScalar for built-ins: it panics on error.
func (r *Registry) MustAddScalar(d ScalarDef) {
	if err := r.AddScalar(d); err != nil {
		panic(err)
	}
}

// DeclareFunction records that name is an aggregate or table function so
// that Kind and IsAggregate know it before its implementation registry
// exists.
func (r *Registry) DeclareFunction(name string, kind FuncKind, cat Category) {
	r.others[strings.ToUpper(name)] = otherEntry{kind: kind, category: cat}
}

// MarkVolatile records that calls of name may return different results
// for the same arguments, so they must not be evaluated at compile time.
func (r *Registry) MarkVolatile(name string) { r.volatile[strings.ToUpper(name)] = true }

// IsVolatile reports whether name was marked volatile.
func (r *Registry) IsVolatile(name string) bool { return r.volatile[strings.ToUpper(name)] }

// Lookup returns the scalar function named name (case-insensitive).
func (r *Registry) Lookup(name string) (*ScalarDef, bool) {
	e, ok := r.scalars[strings.ToUpper(name)]
	if !ok {
		return nil, false
	}
	return &e.def, true
}

// Kind returns what kind of function name is, if it is known at all.
func (r *Registry) Kind(name string) (FuncKind, bool) {
	up := strings.ToUpper(name)
	if _, ok := r.scalars[up]; ok {
		return Scalar, true
	}
	if _, ok := r.tables[up]; ok {
		return Table, true
	}
	o, ok := r.others[up]
	return o.kind, ok
}

// IsAggregate reports whether name is an aggregate function.
func (r *Registry) IsAggregate(name string) bool {
	k, ok := r.Kind(name)
	return ok && k == Aggregate
}

// Names returns every known function name, sorted.
func (r *Registry) Names() []string {
	out := make([]string, 0, len(r.scalars)+len(r.others)+len(r.tables))
	for n := range r.scalars {
		out = append(out, n)
	}
	for n := range r.tables {
		out = append(out, n)
	}
	for n := range r.others {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// FunctionInfo is one row of SHOW FUNCTIONS.
type FunctionInfo struct {
	Name     string
	Category Category
	Kind     FuncKind
}

// Functions returns SHOW FUNCTIONS' rows sorted by name.
func (r *Registry) Functions() []FunctionInfo {
	names := r.Names()
	out := make([]FunctionInfo, len(names))
	for i, n := range names {
		if e, ok := r.scalars[n]; ok {
			out[i] = FunctionInfo{Name: n, Category: e.def.Category, Kind: Scalar}
			continue
		}
		if e, ok := r.tables[n]; ok {
			out[i] = FunctionInfo{Name: n, Category: e.def.Category, Kind: Table}
			continue
		}
		o := r.others[n]
		out[i] = FunctionInfo{Name: n, Category: o.category, Kind: o.kind}
	}
	return out
}

// Argument is one parameter of an overload in DESCRIBE FUNCTION.
type Argument struct {
	Name     string // may be empty
	Type     string // as written in the signature: "ARRAY<T>", "STRING"
	Variadic bool
}

// OverloadInfo is one overload in DESCRIBE FUNCTION.
type OverloadInfo struct {
	Arguments   []Argument
	ReturnType  string
	Description string
}

// Describe returns the overloads of scalar or table function name for
// DESCRIBE FUNCTION, in registration order.
func (r *Registry) Describe(name string) ([]OverloadInfo, bool) {
	up := strings.ToUpper(name)
	if t, ok := r.tables[up]; ok {
		return t.describe(), true
	}
	e, ok := r.scalars[up]
	if !ok {
		return nil, false
	}
	out := make([]OverloadInfo, len(e.sigs))
	for i, s := range e.sigs {
		desc := e.def.Overloads[i].Description
		if desc == "" {
			desc = e.def.Description
		}
		out[i] = OverloadInfo{ReturnType: s.retText, Description: desc, Arguments: s.arguments()}
	}
	return out, true
}

// arguments describes the parameters for DESCRIBE FUNCTION.
func (s *signature) arguments() []Argument {
	out := make([]Argument, len(s.params))
	for j, p := range s.params {
		out[j] = Argument{Name: p.name, Type: p.text, Variadic: j == s.variadic}
	}
	return out
}

// Resolved is the overload chosen for a call: the parameter types the
// caller converts its arguments to (one per argument), the result type and
// the implementation.
type Resolved struct {
	Name      string
	Params    []*types.Type
	Return    *types.Type
	Fn        func([]any) (any, error)
	NullAware bool
	// Patterns are the overload's regular-expression arguments, see
	// Overload.Patterns.
	Patterns []int
	// LambdaParams holds, for each argument that is a lambda, the types of
	// the lambda's parameters (nil for other arguments). Params holds the
	// lambda's result type at that index.
	LambdaParams [][]*types.Type
}

// LambdaTyper type-checks the lambda passed as argument index arg given the
// types of its parameters, and returns the type of its body.
type LambdaTyper func(arg int, params []*types.Type) (*types.Type, error)

// Resolve chooses the best overload of the scalar function name for
// arguments of the given types (UNKNOWN for an untyped NULL).
func (r *Registry) Resolve(name string, args []*types.Type) (*Resolved, error) {
	return r.ResolveLambdas(name, args, nil)
}

// ResolveLambdas is Resolve for calls with lambda arguments: their entries
// in args are nil and typer computes their body types once the generic
// variables of the preceding arguments are bound.
func (r *Registry) ResolveLambdas(name string, args []*types.Type, typer LambdaTyper) (*Resolved, error) {
	in := make([]Arg, len(args))
	for i, a := range args {
		in[i] = Arg{Type: a}
	}
	return r.ResolveArgs(name, in, typer)
}

// Arg describes one argument of a call for ResolveArgs.
type Arg struct {
	Type *types.Type // nil for a lambda
	// StringLiteral marks a constant STRING; under ksqlDB's literal rules
	// it also converts to a TIMESTAMP, DATE or TIME parameter.
	StringLiteral bool
}

// ResolveArgs is ResolveLambdas with per-argument literal information.
func (r *Registry) ResolveArgs(name string, args []Arg, typer LambdaTyper) (*Resolved, error) {
	up := strings.ToUpper(name)
	e, ok := r.scalars[up]
	if !ok {
		return nil, r.unknownFunction(up)
	}
	best, err := e.chooseArgs(up, args, typer)
	if err != nil {
		return nil, err
	}
	o := e.def.Overloads[best.index]
	res := best.res
	if o.Return != nil {
		ret, err := o.Return(res.Params)
		if err != nil {
			return nil, err
		}
		res.Return = ret
	}
	res.Name, res.Fn, res.NullAware, res.Patterns = up, o.Fn, o.NullAware, o.Patterns
	return res, nil
}

// candidate is one overload that accepts the arguments.
type candidate struct {
	index int
	res   *Resolved
	rank  matchRank
}

// choose picks the overload the way ksqlDB's UdfIndex does: overloads
// that accept the arguments without implicit widening win over those that
// need it; among several, a non-variadic overload beats a variadic one,
// then more declared parameters win, then fewer generic parameters. A tie
// at the top is ambiguous.
func (e *scalarEntry) choose(name string, args []*types.Type, typer LambdaTyper) (*candidate, error) {
	in := make([]Arg, len(args))
	for i, a := range args {
		in[i] = Arg{Type: a}
	}
	return e.chooseArgs(name, in, typer)
}

// chooseArgs is choose with per-argument literal information.
func (e *scalarEntry) chooseArgs(name string, args []Arg, typer LambdaTyper) (*candidate, error) {
	var exact, widened []candidate
	var lambdaErr error
	for i, s := range e.sigs {
		res, rank, err := s.match(args, typer)
		switch {
		case err != nil:
			lambdaErr = err
		case res == nil:
		case rank.widened:
			widened = append(widened, candidate{i, res, rank})
		default:
			exact = append(exact, candidate{i, res, rank})
		}
	}
	pool := exact
	if len(pool) == 0 {
		pool = widened
	}
	if len(pool) == 0 {
		if lambdaErr != nil {
			return nil, lambdaErr
		}
		return nil, &NoOverloadError{Name: name, Args: argTypes(args), Alternatives: e.alternatives()}
	}
	sort.SliceStable(pool, func(a, b int) bool { return pool[a].rank.better(pool[b].rank) })
	if len(pool) > 1 && !pool[0].rank.better(pool[1].rank) {
		return nil, &AmbiguousError{Name: name, Args: argTypes(args)}
	}
	return &pool[0], nil
}

func (r *Registry) unknownFunction(name string) error {
	if o, ok := r.others[name]; ok {
		return &KindError{Name: name, Kind: o.kind}
	}
	return &UnknownFunctionError{Name: name}
}

// UnknownFunctionError says no function has the name.
type UnknownFunctionError struct{ Name string }

func (e *UnknownFunctionError) Error() string {
	return fmt.Sprintf("Can't find any functions with the name '%s'", e.Name)
}

// KindError says an aggregate or table function was used where a scalar
// function is expected.
type KindError struct {
	Name string
	Kind FuncKind
}

func (e *KindError) Error() string {
	if e.Kind == Aggregate {
		return fmt.Sprintf("Aggregate function '%s' is not allowed in this context; use it in a SELECT with GROUP BY", e.Name)
	}
	return fmt.Sprintf("Table function '%s' is only allowed in the SELECT list", e.Name)
}

// AmbiguousError says several overloads accept the argument types equally
// well.
type AmbiguousError struct {
	Name string
	Args []*types.Type
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("Function '%s' cannot be resolved due to ambiguous method parameters (%s).", KsqlSpelling(e.Name), argList(e.Args))
}

func argTypes(args []Arg) []*types.Type {
	out := make([]*types.Type, len(args))
	for i, a := range args {
		out[i] = a.Type
	}
	return out
}

// argList renders argument types as ksqlDB does in resolution errors.
func argList(args []*types.Type) string {
	parts := make([]string, len(args))
	for i, a := range args {
		switch {
		case a == nil:
			parts[i] = "LAMBDA"
		case a.Kind == types.KindUnknown:
			parts[i] = "null"
		default:
			parts[i] = a.String()
		}
	}
	return strings.Join(parts, ", ")
}

// NoOverloadError says no overload accepts the argument types.
// Alternatives lists the signatures that exist, as ksqlDB prints them.
type NoOverloadError struct {
	Name         string
	Args         []*types.Type
	Alternatives []string
}

func (e *NoOverloadError) Error() string {
	msg := fmt.Sprintf("Function '%s' does not accept parameters (%s).", KsqlSpelling(e.Name), argList(e.Args))
	if len(e.Alternatives) > 0 {
		msg += "\nValid alternatives are:\n" + strings.Join(e.Alternatives, "\n")
	}
	return msg
}

// alternatives renders each overload's parameters: "SUBSTRING(STRING str,
// INTEGER pos)".
func (e *scalarEntry) alternatives() []string {
	out := make([]string, len(e.sigs))
	for i, s := range e.sigs {
		parts := make([]string, len(s.params))
		for j, a := range s.arguments() {
			parts[j] = a.Type
			if a.Variadic {
				parts[j] += "..."
			}
			if a.Name != "" {
				parts[j] += " " + a.Name
			}
		}
		out[i] = s.name + "(" + strings.Join(parts, ", ") + ")"
	}
	return out
}
