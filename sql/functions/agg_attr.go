package functions

import "github.com/sqlstream/sqlstream/sql/types"

func attrDef() AggregateDef {
	return AggregateDef{
		Name: "ATTR",
		Description: "Returns the single value of the column in the group, NULL included; " +
			"when the group holds more than one distinct value, returns NULL.",
		Overloads: []AggregateOverload{{
			Sig: "ATTR(T val) T",
			New: func(args []*types.Type, _ []any) (Aggregator, error) {
				entry := types.StructOf(types.Field{Name: "VALUE", Type: args[0]}, types.Field{Name: "COUNT", Type: types.IntegerType})
				return &attrAgg{typ: args[0], state: types.ArrayOf(entry)}, nil
			},
		}},
	}
}

// attrAgg is ATTR. State: ARRAY<STRUCT<VALUE T, COUNT INTEGER>>, one
// entry per distinct value seen (NULL is a value); undone values keep
// their entry with COUNT 0, as ksqlDB's do.
type attrAgg struct{ typ, state *types.Type }

var (
	_ Undoer = (*attrAgg)(nil)
	_ Merger = (*attrAgg)(nil)
)

func (a *attrAgg) StateType() *types.Type  { return a.state }
func (a *attrAgg) ReturnType() *types.Type { return a.typ }
func (a *attrAgg) Init() any               { return []any{} }

func (a *attrAgg) Add(acc any, args []any) (any, error)  { return a.update(acc, args[0], 1), nil }
func (a *attrAgg) Undo(acc any, args []any) (any, error) { return a.update(acc, args[0], -1), nil }

// update adds delta to v's count (never below 0) in a copy of the list;
// a value not yet in the list is added when delta is positive.
func (a *attrAgg) update(acc, v any, delta int32) []any {
	list, _ := acc.([]any)
	out := make([]any, len(list), len(list)+1)
	found := false
	for i, e := range list {
		s := e.(*types.StructValue)
		out[i] = s
		if sameValue(s.Values[0], v) {
			found = true
			out[i] = a.entry(v, max(0, countOf[int32](s.Values[1])+delta))
		}
	}
	if !found && delta > 0 {
		out = append(out, a.entry(v, delta))
	}
	return out
}

func (a *attrAgg) entry(v any, n int32) *types.StructValue {
	return &types.StructValue{Type: a.state.Elem, Values: []any{v, n}}
}

func (a *attrAgg) Merge(x, y any) (any, error) {
	out := x
	l2, _ := y.([]any)
	for _, e := range l2 {
		s := e.(*types.StructValue)
		out = a.update(out, s.Values[0], countOf[int32](s.Values[1]))
	}
	return out, nil
}

func (a *attrAgg) Result(acc any) (any, error) {
	list, _ := acc.([]any)
	var only any
	live := 0
	for _, e := range list {
		if s := e.(*types.StructValue); countOf[int32](s.Values[1]) > 0 {
			only, live = s.Values[0], live+1
		}
	}
	if live != 1 {
		return nil, nil
	}
	return only, nil
}
