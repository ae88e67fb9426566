package planner

import (
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// DefaultMaxWindowsPerRecord is sqlstream.window.max.per.record's default:
// how many windows one record may fall into. A HOPPING window puts each
// record into SIZE / ADVANCE BY windows, each a state-store update; 10000
// admits a day advancing by 10 seconds (8640) and keeps the work one record
// causes to milliseconds, where SIZE 1 DAY ADVANCE BY 1 MILLISECOND would
// be 86.4 million updates.
const DefaultMaxWindowsPerRecord = 10000

// windowsPerRecord is how many windows of w contain one timestamp.
func windowsPerRecord(w *ast.WindowExpr) int64 {
	if w.Kind != ast.Hopping || w.Advance <= 0 {
		return 1
	}
	return (w.Size + w.Advance - 1) / w.Advance
}

// checkWindow validates a window whose grace and retention defaults are
// filled in: the windows per record stay within max (0: the default), and
// the retention covers size plus grace, as Kafka Streams requires of a
// window store.
func checkWindow(w *ast.WindowExpr, max int) error {
	if max <= 0 {
		max = DefaultMaxWindowsPerRecord
	}
	if n := windowsPerRecord(w); n > int64(max) {
		return sqlerr.New(sqlerr.Semantic, w.P,
			"HOPPING window of SIZE %s and ADVANCE BY %s puts each record into %d windows, more than the limit of %d (sqlstream.window.max.per.record)",
			ast.FormatDuration(w.Size), ast.FormatDuration(w.Advance), n, max)
	}
	switch {
	case w.Retention >= w.Size+w.Grace:
	case w.Kind == ast.Session:
		return sqlerr.New(sqlerr.Semantic, w.P,
			"The retention period of the session store must be no smaller than the session inactivity gap plus the grace period. Got gap=[%d], grace=[%d], retention=[%d]",
			w.Size, w.Grace, w.Retention)
	default:
		return sqlerr.New(sqlerr.Semantic, w.P,
			"The retention period of the window store must be no smaller than its window size plus the grace period. Got size=[%d], grace=[%d], retention=[%d]",
			w.Size, w.Grace, w.Retention)
	}
	return nil
}
