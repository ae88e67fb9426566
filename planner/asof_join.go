package planner

import (
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// DefaultHistoryRetention is a table's HISTORY_RETENTION unless set: one
// day, in milliseconds.
const DefaultHistoryRetention int64 = 24 * 60 * 60 * 1000

// AsOfJoin is the as-of part of a stream–table join (`JOIN t FOR
// SYSTEM_TIME AS OF s.ROWTIME`): the table keeps its history and each
// stream row joins the version valid at its time.
type AsOfJoin struct {
	// TimeIndex is the stream column holding the lookup time, -1 for the
	// row's ROWTIME.
	TimeIndex int
	// Time is the time reference as written (EXPLAIN).
	Time *ast.ColumnRef
	// Grace (ms) is how long stream rows wait for late table updates;
	// -1: none, they join at once.
	Grace int64
	// Retention (ms) is the table's history retention.
	Retention int64
}

// String is the EXPLAIN detail of the as-of part.
func (a *AsOfJoin) String() string {
	s := " | As of: " + ast.FormatExpr(a.Time)
	if a.Grace >= 0 {
		s += " | Grace: " + ast.FormatDuration(a.Grace)
	}
	return s + " | History: " + ast.FormatDuration(a.Retention)
}

// applyHistoryRetention reads HISTORY_RETENTION='<n> <unit>' of a table.
func applyHistoryRetention(src *Source, w *withProps) error {
	v, pos, ok := w.str("HISTORY_RETENTION")
	if !ok {
		return nil
	}
	if src.Kind != ast.Table {
		return sqlerr.New(sqlerr.Semantic, pos, "HISTORY_RETENTION applies to tables only: it is how far back an as-of join (FOR SYSTEM_TIME AS OF) reads a table's versions")
	}
	ms, err := ParseDuration(v)
	if err != nil || ms <= 0 {
		return sqlerr.New(sqlerr.Semantic, pos, "Invalid HISTORY_RETENTION '%s': expected a positive duration such as '1 DAY'", v)
	}
	src.HistoryRetention = ms
	return nil
}

// checkAsOfSources rejects an as-of join of anything but a source stream
// with a table, before the shape's own errors (a stream–stream join's
// missing WITHIN would be misleading).
func checkAsOfSources(j *ast.Join, l, r JoinInput, prefix string) error {
	a := j.AsOf
	switch {
	case a == nil:
		return nil
	case l.Nested() || prefix != "":
		return sqlerr.New(sqlerr.Unsupported, a.P, "FOR SYSTEM_TIME AS OF is not supported yet in a join of more than two sources")
	case r.Source.Kind != ast.Table:
		return sqlerr.New(sqlerr.Semantic, a.P, "FOR SYSTEM_TIME AS OF needs a table to look up: %s is a stream", r.Source.Name)
	case l.Source.Kind != ast.Stream:
		return sqlerr.New(sqlerr.Semantic, a.P, "FOR SYSTEM_TIME AS OF needs a stream on the left: %s is a table (table-table joins always see the latest version)", l.Source.Name)
	}
	return nil
}

// asOfJoin resolves the as-of part of a stream–table join: the AS OF
// time must be the stream side's ROWTIME or a TIMESTAMP or BIGINT column
// of it.
func asOfJoin(j *ast.Join, l, r JoinInput, s *joinScope) (*AsOfJoin, error) {
	a := j.AsOf
	if a == nil {
		return nil, nil
	}
	retention := r.Source.HistoryRetention
	if retention == 0 {
		retention = DefaultHistoryRetention
	}
	out := &AsOfJoin{TimeIndex: -1, Time: a.Time, Grace: a.Grace, Retention: retention}
	ref := a.Time
	if ref.Name == rowTimeColumn && l.Source.Schema.Find(rowTimeColumn) < 0 && (ref.Source == "" || ref.Source == l.Alias || ref.Source == l.Source.Name) {
		return out, nil
	}
	tableTime := ref.Name == rowTimeColumn && (ref.Source == r.Alias || ref.Source == r.Source.Name)
	lf, err := s.leaf(ref)
	if tableTime || (err == nil && lf != nil && lf.side != 0) {
		return nil, sqlerr.New(sqlerr.Semantic, ref.P, "FOR SYSTEM_TIME AS OF must read the stream side's time (%s.ROWTIME or a timestamp column of %s), not the table %s", l.Alias, l.Alias, r.Alias)
	}
	if err != nil {
		return nil, err
	}
	if lf == nil {
		return nil, sqlerr.New(sqlerr.Unknown, ref.P, "FOR SYSTEM_TIME AS OF: column '%s' cannot be resolved", ast.FormatExpr(ref))
	}
	out.TimeIndex = l.Source.Schema.Find(ref.Name)
	t := l.Source.Schema.Columns[out.TimeIndex].Type
	if t.Kind != types.KindTimestamp && t.Kind != types.KindBigint {
		return nil, sqlerr.New(sqlerr.Type, ref.P, "FOR SYSTEM_TIME AS OF needs ROWTIME or a TIMESTAMP or BIGINT column: %s is %s", ast.FormatExpr(ref), t)
	}
	return out, nil
}
