package expr

import (
	"reflect"

	"github.com/sqlstream/sqlstream/sql/types"
)

// inSet is the hash set of an IN list whose entries are all constants of
// a type Go compares like SQL does (strings, integers, booleans): a lookup
// instead of one comparison per entry, so that `k IN (10,000 keys)` over
// a table costs rows, not rows × keys.
type inSet struct {
	values map[any]struct{}
	typ    reflect.Type // the Go type of every entry
}

// newInSet returns the set of the list ns[1:], or nil when an entry is not
// a constant or the type is not one the set handles. NULL entries, which
// never match, are left out.
func newInSet(ns []*node) *inSet {
	switch ns[0].typ.Kind {
	case types.KindString, types.KindInteger, types.KindBigint, types.KindBoolean:
	default:
		return nil
	}
	s := &inSet{values: make(map[any]struct{}, len(ns)-1)}
	for _, n := range ns[1:] {
		if !n.isConst {
			return nil
		}
		if n.value == nil {
			continue
		}
		t := reflect.TypeOf(n.value)
		if s.typ != nil && t != s.typ {
			return nil
		}
		s.typ = t
		s.values[n.value] = struct{}{}
	}
	return s
}

// match says whether v is in the set; ok is false when v's Go type is not
// the entries' (the caller then compares entry by entry).
func (s *inSet) match(v any) (in, ok bool) {
	if s.typ == nil {
		return false, true // only NULL entries: nothing matches
	}
	if reflect.TypeOf(v) != s.typ {
		return false, false
	}
	_, in = s.values[v]
	return in, true
}
