package functions

import (
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sqlstream/sqlstream/sql/types"
)

// Aggregates is the aggregate function registry, the counterpart of
// Registry for UDAFs. It is built once (NewAggregates registers the
// built-ins) and read concurrently afterwards.
//
//	AggregateDef ──Add──▶ Aggregates ──Resolve(name, arg types, literals)──▶ Aggregator
//	                          │                                            (Add/Result,
//	                          └──Describe──▶ []OverloadInfo                 Undo, Merge)
type Aggregates struct {
	defs map[string]*aggregateEntry
	// sigs holds every overload's signature as a scalar function under a
	// private name (see sigName), so aggregates resolve and describe
	// exactly like scalar functions do.
	sigs *Registry
	cfg  aggConfig
	// seq numbers the rows LATEST_BY_OFFSET and EARLIEST_BY_OFFSET see,
	// across all their aggregators, so merged session accumulators keep
	// offset order. It starts at the wall clock in nanoseconds so numbers
	// issued after a restart are larger than those in restored state.
	seq atomic.Int64
}

type aggregateEntry struct {
	def AggregateDef
	// markers[i] is the return type overload i's signature resolves to
	// in sigs: a unique pointer that tells which overload was chosen.
	markers []*types.Type
}

// sigName is the name an aggregate's signatures have in Aggregates.sigs;
// "__" keeps it apart from every SQL function name.
func sigName(name string) string { return "__AGGREGATE__" + name }

// aggConfig holds the settings of the built-in aggregates.
type aggConfig struct {
	collectListLimit int
	collectSetLimit  int
}

// AggregatesOption configures NewAggregates.
type AggregatesOption interface{ apply(*aggConfig) }

type aggOption func(*aggConfig)

func (f aggOption) apply(c *aggConfig) { f(c) }

// WithCollectListLimit caps the arrays COLLECT_LIST builds
// (ksql.functions.collect_list.limit). Default 1000; a negative limit
// means no cap.
func WithCollectListLimit(n int) AggregatesOption {
	return aggOption(func(c *aggConfig) { c.collectListLimit = n })
}

// WithCollectSetLimit caps the arrays COLLECT_SET builds
// (ksql.functions.collect_set.limit). Default 1000; a negative limit
// means no cap.
func WithCollectSetLimit(n int) AggregatesOption {
	return aggOption(func(c *aggConfig) { c.collectSetLimit = n })
}

// DefaultCollectLimit is the default cap of COLLECT_LIST and COLLECT_SET.
const DefaultCollectLimit = 1000

// NewAggregates returns a registry with every built-in aggregate function
// registered.
func NewAggregates(opts ...AggregatesOption) *Aggregates {
	cfg := aggConfig{collectListLimit: DefaultCollectLimit, collectSetLimit: DefaultCollectLimit}
	for _, o := range opts {
		o.apply(&cfg)
	}
	a := &Aggregates{defs: map[string]*aggregateEntry{}, sigs: NewRegistry(), cfg: cfg.normalized()}
	a.seq.Store(time.Now().UnixNano())
	for _, d := range a.builtinAggregates() {
		if err := a.Add(d); err != nil {
			panic(err)
		}
	}
	return a
}

func (c aggConfig) normalized() aggConfig {
	if c.collectListLimit < 0 {
		c.collectListLimit = int(^uint(0) >> 1)
	}
	if c.collectSetLimit < 0 {
		c.collectSetLimit = int(^uint(0) >> 1)
	}
	return c
}

// nextSeq returns the next row sequence number.
func (a *Aggregates) nextSeq() int64 { return a.seq.Add(1) }

// Add registers an aggregate function. Its overloads' signatures are
// parsed here; a malformed signature, one naming another function, a
// missing New, an InitArgs count larger than the parameter list, a
// variadic init argument or a name already taken is an error.
func (a *Aggregates) Add(d AggregateDef) error {
	d.Name = strings.ToUpper(d.Name)
	if _, dup := a.defs[d.Name]; dup {
		return fmt.Errorf("aggregate function %s is already registered", d.Name)
	}
	e := &aggregateEntry{def: d}
	sd := ScalarDef{Name: sigName(d.Name), Category: CatAggregate, Description: d.Description}
	for i, o := range d.Overloads {
		sig, err := renameSignature(d.Name, o)
		if err != nil {
			return err
		}
		marker := &types.Type{Kind: types.KindUnknown}
		e.markers = append(e.markers, marker)
		sd.Overloads = append(sd.Overloads, Overload{
			Sig: sig, Description: o.Description, NullAware: true,
			Return: func([]*types.Type) (*types.Type, error) { return marker, nil },
			Fn: func([]any) (any, error) {
				return nil, fmt.Errorf("aggregate %s overload %d is not a scalar", d.Name, i)
			},
		})
	}
	if err := a.sigs.AddScalar(sd); err != nil {
		return fmt.Errorf("%s", strings.ReplaceAll(err.Error(), sigName(d.Name), d.Name))
	}
	if err := a.checkInitArgs(e); err != nil {
		return err
	}
	a.defs[d.Name] = e
	return nil
}

// renameSignature checks that an overload belongs to function name and
// returns its signature under sigName(name).
func renameSignature(name string, o AggregateOverload) (string, error) {
	sig := strings.TrimSpace(o.Sig)
	open := strings.IndexByte(sig, '(')
	if open < 0 || !strings.EqualFold(strings.TrimSpace(sig[:open]), name) {
		return "", fmt.Errorf("signature %q does not belong to aggregate function %s", o.Sig, name)
	}
	if o.New == nil {
		return "", fmt.Errorf("signature %q has no implementation", o.Sig)
	}
	return sigName(name) + sig[open:], nil
}

// checkInitArgs checks that each overload's init arguments are among its
// last parameters and none of them is variadic.
func (a *Aggregates) checkInitArgs(e *aggregateEntry) error {
	infos, _ := a.sigs.Describe(sigName(e.def.Name))
	for i, o := range e.def.Overloads {
		params := infos[i].Arguments
		if o.InitArgs < 0 || o.InitArgs > len(params) {
			return fmt.Errorf("signature %q: %d init arguments but %d parameters", o.Sig, o.InitArgs, len(params))
		}
		for _, p := range params[len(params)-o.InitArgs:] {
			if p.Variadic {
				return fmt.Errorf("signature %q: an init argument cannot be variadic", o.Sig)
			}
		}
	}
	return nil
}

// IsAggregate reports whether name is a registered aggregate function.
func (a *Aggregates) IsAggregate(name string) bool {
	_, ok := a.defs[strings.ToUpper(name)]
	return ok
}

// Names returns the registered aggregate function names, sorted.
func (a *Aggregates) Names() []string {
	out := make([]string, 0, len(a.defs))
	for n := range a.defs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// DeclareIn records every aggregate function of a in the scalar registry
// r (Registry.DeclareFunction), so that r's Kind, IsAggregate and SHOW
// FUNCTIONS know exactly the aggregates that Resolve implements.
func (a *Aggregates) DeclareIn(r *Registry) {
	for n := range a.defs {
		r.DeclareFunction(n, Aggregate, CatAggregate)
	}
}

// Lookup returns the aggregate function named name (case-insensitive).
func (a *Aggregates) Lookup(name string) (*AggregateDef, bool) {
	e, ok := a.defs[strings.ToUpper(name)]
	if !ok {
		return nil, false
	}
	return &e.def, true
}

// Describe returns the overloads of aggregate function name for DESCRIBE
// FUNCTION, in registration order, in the shape Registry.Describe uses.
// Init arguments are listed like the column arguments.
func (a *Aggregates) Describe(name string) ([]OverloadInfo, bool) {
	up := strings.ToUpper(name)
	if _, ok := a.defs[up]; !ok {
		return nil, false
	}
	return a.sigs.Describe(sigName(up))
}
