package planner

import (
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// checkWindowedKinds rejects windowed sources whose windows cannot match:
// a session window only joins session windows, a hopping or tumbling one
// only those (ksqlDB's message).
func checkWindowedKinds(j *ast.Join, l, r JoinInput) error {
	if !l.Source.Windowed() || !r.Source.Windowed() {
		return nil
	}
	if (l.Source.Window.Kind == ast.Session) == (r.Source.Window.Kind == ast.Session) {
		return nil
	}
	return sqlerr.New(sqlerr.Semantic, j.P, "Incompatible windowed sources.\nLeft source: %s\nRight source: %s\n"+
		"Session windowed sources can only be joined to other session windowed sources, and may still not result in expected behaviour as session bounds must be an exact match for the join to work\n"+
		"Hopping and tumbling windowed sources can only be joined to other hopping and tumbling windowed sources",
		windowKindText(l.Source), windowKindText(r.Source))
}

func windowKindText(s *Source) string {
	return [...]string{ast.Tumbling: "TUMBLING", ast.Hopping: "HOPPING", ast.Session: "SESSION", ast.Sliding: "SLIDING"}[s.Window.Kind]
}

// checkWindowedJoin applies ksqlDB's rules to a join of windowed
// sources once its condition is planned: the join key is the key and
// its window, so both sides must be joined on their keys (a windowed
// source is never re-keyed), and written alike: the same window type
// and size and the same key format (else ksqlDB would repartition one
// side, which it does not do for windowed sources). A foreign-key join
// looks up the right table by key alone, so it takes no windowed table.
//
// A stream–stream join keyed in a registry format repartitions both
// sides by their keys anyway (forcesRepartition): there, as in ksqlDB,
// the right's window may differ in type and size, and its key format
// too (both are written in the left's).
func (p *Planner) checkWindowedJoin(j *ast.Join, n *Join) error {
	l, r := n.Left.Source, n.Right.Source
	if !l.Windowed() {
		return nil
	}
	switch {
	case n.Foreign():
		return sqlerr.New(sqlerr.Unsupported, j.P, "Foreign-key table-table joins are not supported on windowed tables.")
	case n.Left.Rekeyed() || n.Right.Rekeyed():
		return sqlerr.New(sqlerr.Unsupported, j.P, "Implicit repartitioning of windowed sources is not supported. See https://github.com/confluentinc/ksql/issues/4385.")
	case l.Window.Kind == r.Window.Kind && l.Window.Size == r.Window.Size && l.KeyFormat.Name == r.KeyFormat.Name:
		return nil
	case p.forcesRepartition(n):
		return nil
	}
	return sqlerr.New(sqlerr.Unsupported, j.P, "Implicit repartitioning of windowed sources is not supported.")
}
