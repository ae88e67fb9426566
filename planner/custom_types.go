package planner

import (
	"sort"
	"sync"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// TypeRegistry holds the custom types of CREATE TYPE. Unlike the rest of
// the catalog it is safe for concurrent use: statements are parsed (and
// their type names resolved) before the engine serializes them.
type TypeRegistry struct {
	mu    sync.RWMutex
	types map[string]*types.Type
}

// Types returns the catalog's custom types.
func (c *Catalog) Types() *TypeRegistry { return &c.types }

// NamedType is one registered custom type.
type NamedType struct {
	Name string
	Type *types.Type
}

// Lookup returns the type registered as name; it fits parser.WithTypes.
func (r *TypeRegistry) Lookup(name string) (*types.Type, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.types[name]
	return t, ok
}

// List returns the registered types sorted by name.
func (r *TypeRegistry) List() []NamedType {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]NamedType, 0, len(r.types))
	for n, t := range r.types {
		out = append(out, NamedType{Name: n, Type: t})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Register applies CREATE TYPE. It returns false, with no error, when the
// type exists and IF NOT EXISTS was given.
func (r *TypeRegistry) Register(st *ast.CreateType) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.types[st.Name]; ok {
		if st.IfNotExists {
			return false, nil
		}
		return false, sqlerr.New(sqlerr.Exists, st.P,
			"Cannot register custom type '%s' since it is already registered with type: %s", st.Name, old)
	}
	if r.types == nil {
		r.types = map[string]*types.Type{}
	}
	r.types[st.Name] = st.Type
	return true, nil
}

// Drop applies DROP TYPE. It returns false, with no error, when the type
// does not exist and IF EXISTS was given.
func (r *TypeRegistry) Drop(st *ast.DropType) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.types[st.Name]; !ok {
		if st.IfExists {
			return false, nil
		}
		return false, sqlerr.New(sqlerr.Unknown, st.P, "Type %s does not exist.", st.Name)
	}
	delete(r.types, st.Name)
	return true, nil
}
