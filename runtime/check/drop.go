package check

import (
	"sort"
	"strings"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// Drop checks DROP STREAM|TABLE of src (nil: no such source; the caller
// answers IF EXISTS) against the statement and the running queries:
// DELETE TOPIC of a read-only source, the wrong kind, and a source others
// still use are refused in ksqlDB's words. owner is the id of the CREATE
// … AS SELECT query that owns the source ("" for none): it ends with the
// source.
func Drop(st *ast.Drop, src *planner.Source, queries []Query) (owner string, err error) {
	switch {
	case src == nil:
		kind := strings.ToLower(st.Kind.String())
		return "", sqlerr.New(sqlerr.Unknown, st.P, "%s %s does not exist.", strings.ToUpper(kind[:1])+kind[1:], st.Name)
	case st.DeleteTopic && src.ReadOnly:
		return "", sqlerr.New(sqlerr.Semantic, st.P, "Cannot delete topic for read-only source: %s", src.Name)
	case src.Kind != st.Kind:
		return "", sqlerr.New(sqlerr.Semantic, st.P, "Incompatible data source type is %s, but statement was DROP %s", src.Kind, st.Kind)
	}
	owner, users := using(queries, src.Name)
	return owner, dropUsers(st.P, src.Name, owner, users, queries)
}

// using returns the id of the CREATE … AS SELECT query that owns name
// and every other query that reads or writes it.
func using(queries []Query, name string) (string, []Query) {
	var owner string
	var users []Query
	for _, q := range queries {
		if q.ownsSink() && q.Writes(name) {
			owner = q.ID
			continue
		}
		if q.Reads(name) || q.Writes(name) {
			users = append(users, q)
		}
	}
	return owner, users
}

// dropUsers refuses to drop a source others still use, in ksqlDB's
// order and words: first the INSERT INTO queries that read or write it
// (they must be terminated), then the sources whose CREATE … AS SELECT
// reads it (they must be dropped), listed by name in sorted order.
func dropUsers(pos ast.Pos, name, owner string, users, queries []Query) error {
	var inserts, readers []string
	for _, q := range users {
		if q.ownsSink() && !q.Writes(name) {
			readers = append(readers, q.Plan.Sink.Name)
			continue
		}
		inserts = append(inserts, q.ID)
	}
	if len(inserts) > 0 {
		var in []string
		for _, q := range queries {
			if q.ID != owner && !q.ownsSink() && q.Reads(name) {
				in = append(in, q.ID)
			}
		}
		out := Writers(queries, name, owner)
		sort.Strings(in)
		sort.Strings(out)
		return sqlerr.New(sqlerr.InUse, pos, "Cannot drop %s.\nThe following queries read from this source: [%s].\nThe following queries write into this source: [%s].\nYou need to terminate them before dropping %s.",
			name, strings.Join(in, ", "), strings.Join(out, ", "), name)
	}
	if len(readers) > 0 {
		sort.Strings(readers)
		return sqlerr.New(sqlerr.InUse, pos, "Cannot drop %s.\nThe following streams and/or tables read from this source: [%s].\nYou need to drop them before dropping %s.",
			name, strings.Join(readers, ", "), name)
	}
	return nil
}
