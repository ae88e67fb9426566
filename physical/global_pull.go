package physical

import (
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/types"
)

// GlobalSpecOf is the store of global table src read on its own: a pull
// query on a global table answers from such a full local copy.
func GlobalSpecOf(src *planner.Source, opts Options) GlobalStoreSpec {
	b := &builder{opts: opts}
	g := GlobalStoreSpec{Name: src.Name + "-GlobalStore", Topic: src.Topic, Source: src, parse: b.timestampParser(src)}
	g.keys, g.values = b.internal().globalFormats(src)
	return g
}

// Rows passes every row of a global store to fn, in key order, as the
// table's rows (all columns, the row time of its last change), until fn
// fails. fn must not use the store.
func (g GlobalStoreSpec) Rows(store Store, fn func(*types.Row) error) error {
	side, err := newSideStore(store, g.Source.Schema, g.keys, g.values)
	if err != nil {
		return err
	}
	var ferr error
	err = store.Range(nil, nil, func(k, v []byte) bool {
		keyVals := make([]any, len(side.keys))
		if ferr = side.key.Decode(k, keyVals); ferr != nil {
			return false
		}
		r, err := side.decode(v, keyVals)
		if err != nil {
			ferr = err
			return false
		}
		ferr = fn(&types.Row{Values: r.values, Time: r.time})
		return ferr == nil
	})
	if err != nil {
		return err
	}
	return ferr
}
