package functions

import (
	"github.com/sqlstream/sqlstream/sql/types"
)

// matchRank says how well an overload fits the arguments (see choose).
type matchRank struct {
	widened  bool // some argument needs an implicit conversion
	variadic bool
	params   int // declared parameters
	generics int // declared parameters that use type variables
}

// better reports whether r is strictly preferred over o.
func (r matchRank) better(o matchRank) bool {
	if r.variadic != o.variadic {
		return !r.variadic
	}
	if r.params != o.params {
		return r.params > o.params
	}
	return r.generics < o.generics
}

func (s *signature) rank(widened bool) matchRank {
	r := matchRank{widened: widened, variadic: s.variadic >= 0, params: len(s.params)}
	for _, p := range s.params {
		if p.typ.hasVariables() {
			r.generics++
		}
	}
	return r
}

// hasVariables reports whether p mentions a type variable.
func (p *pattern) hasVariables() bool {
	if p.variable != "" {
		return true
	}
	for _, q := range append([]*pattern{p.elem, p.key}, p.lambda...) {
		if q != nil && q.hasVariables() {
			return true
		}
	}
	for _, f := range p.fields {
		if f.typ.hasVariables() {
			return true
		}
	}
	return false
}

// bind results: whether the argument fits, and whether it needs widening.
const (
	costWiden   = 1
	costGeneric = 0
)

// binder collects the generic variable bindings of one overload match.
type binder struct {
	vars    map[string]*types.Type
	decimal *types.Type // the first DECIMAL bound to an any-precision DECIMAL
}

// expand returns one parameter pattern per argument, repeating the
// variadic parameter as needed, or false when the count cannot match.
func (s *signature) expand(n int) ([]*pattern, bool) {
	if s.variadic < 0 {
		if n != len(s.params) {
			return nil, false
		}
		out := make([]*pattern, n)
		for i, p := range s.params {
			out[i] = p.typ
		}
		return out, true
	}
	fixed := len(s.params) - 1
	if n < fixed {
		return nil, false
	}
	out := make([]*pattern, 0, n)
	for _, p := range s.params[:s.variadic] {
		out = append(out, p.typ)
	}
	for i := 0; i < n-fixed; i++ {
		out = append(out, s.params[s.variadic].typ)
	}
	for _, p := range s.params[s.variadic+1:] {
		out = append(out, p.typ)
	}
	return out, true
}

// match checks the argument types against s. It returns nil (and no error)
// when s does not apply; an error only comes from typing a lambda.
func (s *signature) match(args []Arg, typer LambdaTyper) (*Resolved, matchRank, error) {
	pats, ok := s.expand(len(args))
	if !ok {
		return nil, matchRank{}, nil
	}
	b := &binder{vars: map[string]*types.Type{}}
	cost := 0
	for i, p := range pats {
		if p.isLambda() != (args[i].Type == nil) {
			return nil, matchRank{}, nil
		}
		if p.isLambda() {
			continue
		}
		c, ok := b.bind(p, args[i].Type)
		if !ok {
			c, ok = literalToTemporal(p, args[i])
		}
		if !ok {
			return nil, matchRank{}, nil
		}
		cost += c
	}
	lambdaParams, c, err := b.bindLambdas(pats, typer)
	if err != nil || lambdaParams == nil && hasLambda(pats) {
		return nil, matchRank{}, err
	}
	return b.resolved(s, pats, argTypes(args), lambdaParams), s.rank(cost+c > 0), nil
}

// literalToTemporal accepts a STRING literal for a TIMESTAMP, DATE or
// TIME parameter (an implicit conversion).
func literalToTemporal(p *pattern, a Arg) (int, bool) {
	switch p.kind {
	case types.KindTimestamp, types.KindDate, types.KindTime:
		return costWiden, a.StringLiteral && p.variable == "" && a.Type.Kind == types.KindString
	}
	return 0, false
}

func hasLambda(pats []*pattern) bool {
	for _, p := range pats {
		if p.isLambda() {
			return true
		}
	}
	return false
}

// bindLambdas types each lambda argument once the variables its inputs
// use are bound, and binds the variables of its result.
func (b *binder) bindLambdas(pats []*pattern, typer LambdaTyper) ([][]*types.Type, int, error) {
	if !hasLambda(pats) {
		return nil, 0, nil
	}
	if typer == nil {
		return nil, 0, nil
	}
	out := make([][]*types.Type, len(pats))
	cost := 0
	for i, p := range pats {
		if !p.isLambda() {
			continue
		}
		n := len(p.lambda) - 1
		ins := make([]*types.Type, n)
		for j, in := range p.lambda[:n] {
			ins[j] = b.instantiate(in, nil)
		}
		body, err := typer(i, ins)
		if err != nil {
			return nil, 0, err
		}
		c, ok := b.bind(p.lambda[n], body)
		if !ok {
			return nil, 0, nil
		}
		out[i], cost = ins, cost+c
	}
	return out, cost, nil
}

// resolved builds the result of a successful match. Lambda parameter
// types are instantiated again with the final bindings: a later argument
// may have widened a variable the lambda was first typed with (REDUCE's
// state).
func (b *binder) resolved(s *signature, pats []*pattern, args []*types.Type, lambdas [][]*types.Type) *Resolved {
	params := make([]*types.Type, len(pats))
	for i, p := range pats {
		if !p.isLambda() {
			params[i] = b.instantiate(p, args[i])
			continue
		}
		n := len(p.lambda) - 1
		params[i] = b.instantiate(p.lambda[n], nil)
		for j, in := range p.lambda[:n] {
			lambdas[i][j] = b.instantiate(in, nil)
		}
	}
	return &Resolved{Params: params, Return: b.instantiate(s.ret, nil), LambdaParams: lambdas}
}

// bind matches argument type a against pattern p, binding variables.
func (b *binder) bind(p *pattern, a *types.Type) (int, bool) {
	if p.variable != "" {
		return b.bindVar(p.variable, a)
	}
	if a.Kind == types.KindUnknown {
		return 0, true
	}
	switch {
	case p.anyDecimal:
		return b.bindAnyDecimal(a)
	case p.anyStruct:
		return 0, a.Kind == types.KindStruct
	case p.kind == types.KindArray:
		if a.Kind != types.KindArray {
			return 0, false
		}
		return b.bind(p.elem, a.Elem)
	case p.kind == types.KindMap:
		return b.bindMap(p, a)
	case p.kind == types.KindStruct:
		return b.bindStruct(p, a)
	}
	c, ok := CanImplicitlyCast(a, b.instantiate(p, a))
	if c > 0 {
		c = costWiden
	}
	return c, ok
}

func (b *binder) bindVar(v string, a *types.Type) (int, bool) {
	if a.Kind == types.KindUnknown {
		return 0, true
	}
	cur, ok := b.vars[v]
	if !ok {
		b.vars[v] = a
		return costGeneric, true
	}
	if cur.Equal(a) {
		return 0, true
	}
	common, ok := CommonType(cur, a)
	if !ok {
		return 0, false
	}
	b.vars[v] = common
	return costWiden, true
}

// bindAnyDecimal accepts a DECIMAL (or an integer, widened) for a DECIMAL
// parameter of any precision and tracks the widened type of all of them.
func (b *binder) bindAnyDecimal(a *types.Type) (int, bool) {
	cost := 0
	switch a.Kind {
	case types.KindDecimal:
	case types.KindInteger, types.KindBigint:
		cost = costWiden
	default:
		return 0, false
	}
	d := DecimalFor(a)
	if b.decimal != nil {
		d = WidenDecimal(b.decimal, d)
	}
	b.decimal = d
	return cost, true
}

func (b *binder) bindMap(p *pattern, a *types.Type) (int, bool) {
	if a.Kind != types.KindMap {
		return 0, false
	}
	c1, ok1 := b.bind(p.key, a.Key)
	c2, ok2 := b.bind(p.elem, a.Elem)
	return c1 + c2, ok1 && ok2
}

func (b *binder) bindStruct(p *pattern, a *types.Type) (int, bool) {
	if a.Kind != types.KindStruct || len(a.Fields) != len(p.fields) {
		return 0, false
	}
	total := 0
	for i, f := range p.fields {
		if a.Fields[i].Name != f.name {
			return 0, false
		}
		c, ok := b.bind(f.typ, a.Fields[i].Type)
		if !ok {
			return 0, false
		}
		total += c
	}
	return total, true
}

// instantiate turns p into a concrete type using the bindings and, for
// any-precision DECIMALs and any-shape STRUCTs, the argument type a (nil
// for return types). Unbound variables become UNKNOWN.
func (b *binder) instantiate(p *pattern, a *types.Type) *types.Type {
	switch {
	case p.variable != "":
		if t, ok := b.vars[p.variable]; ok {
			return t
		}
		return types.UnknownType
	case p.anyDecimal:
		return b.anyDecimal(a)
	case p.anyStruct:
		if a != nil && a.Kind == types.KindStruct {
			return a
		}
		return types.UnknownType
	}
	return b.instantiateKind(p, a)
}

// anyDecimal instantiates an any-precision DECIMAL: a parameter takes
// its argument's own type (integers widened), the return type the widened
// type of all such arguments.
func (b *binder) anyDecimal(a *types.Type) *types.Type {
	if a != nil && (a.Kind == types.KindDecimal || a.Kind == types.KindInteger || a.Kind == types.KindBigint) {
		return DecimalFor(a)
	}
	if b.decimal != nil {
		return b.decimal
	}
	return types.DecimalOf(38, 18)
}

func (b *binder) instantiateKind(p *pattern, a *types.Type) *types.Type {
	switch p.kind {
	case types.KindDecimal:
		return types.DecimalOf(p.prec, p.sc)
	case types.KindArray:
		return types.ArrayOf(b.instantiate(p.elem, partOf(a, types.KindArray, false)))
	case types.KindMap:
		return types.MapOf(b.instantiate(p.key, partOf(a, types.KindMap, true)), b.instantiate(p.elem, partOf(a, types.KindMap, false)))
	case types.KindStruct:
		fields := make([]types.Field, len(p.fields))
		for i, f := range p.fields {
			var at *types.Type
			if a != nil && a.Kind == types.KindStruct && i < len(a.Fields) {
				at = a.Fields[i].Type
			}
			fields[i] = types.Field{Name: f.name, Type: b.instantiate(f.typ, at)}
		}
		return types.StructOf(fields...)
	}
	return primitiveType(p.kind)
}

// part returns a's element (or key) type when a is of kind k, else nil.
func partOf(a *types.Type, k types.Kind, key bool) *types.Type {
	if a == nil || a.Kind != k {
		return nil
	}
	if key {
		return a.Key
	}
	return a.Elem
}

func primitiveType(k types.Kind) *types.Type {
	switch k {
	case types.KindBoolean:
		return types.BooleanType
	case types.KindInteger:
		return types.IntegerType
	case types.KindBigint:
		return types.BigintType
	case types.KindDouble:
		return types.DoubleType
	case types.KindString:
		return types.StringType
	case types.KindBytes:
		return types.BytesType
	case types.KindTimestamp:
		return types.TimestampType
	case types.KindDate:
		return types.DateType
	case types.KindTime:
		return types.TimeType
	}
	return types.UnknownType
}
