package physical

import (
	"fmt"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// A stream–stream join of windowed streams keyed in a registry format
// repartitions both sides by their keys (planner forcesRepartition), as
// ksqlDB does. Their records keep their windows:
//
//   - the repartition key is the join key followed by the window in the
//     left source's windowed key format (Kafka Streams' windowed
//     serializers: a time window's start; a session's end and start), so
//     equal keys and windows are equal bytes on both sides;
//   - the repartition value, and the row a window store keeps, end with
//     the row's own window bounds (WINDOWSTART, WINDOWEND), which the
//     start alone does not give back for the right side's time windows
//     (ksqlDB carries them as value columns too);
//   - rows match by their key and their window as the left's format
//     reads it (matchWindow): time windows of other sizes or types join
//     by their starts, as in ksqlDB.

// windowBoundColumns are the value columns after a side's own that carry
// its row's window.
var windowBoundColumns = []types.Column{
	{Name: "WINDOWSTART", Type: types.BigintType, NS: types.ValueNS},
	{Name: "WINDOWEND", Type: types.BigintType, NS: types.ValueNS},
}

// windowedRekey reports whether a side is a windowed stream re-keyed
// through a repartition topic.
func windowedRekey(n *planner.Join, side planner.JoinSide) bool {
	in := joinInput(n, side)
	return in.Rekeyed() && !in.Nested() && in.Source.Windowed()
}

// carriesWindows reports whether a stream–stream join's sides come
// through repartition topics with their windows, so its window stores
// keep each row's own window.
func carriesWindows(n *planner.Join) bool {
	return windowedRekey(n, planner.JoinLeft) || windowedRekey(n, planner.JoinRight)
}

// sessionKeys reports whether the join's windowed keys are session keys
// (the left's window type decides the format).
func sessionKeys(n *planner.Join) bool {
	return n.Left.Source.Window.Kind == ast.Session
}

// matchSize is the window size rows of a join match by: the left's time
// window size when the sides carry their windows (a window then matches
// by its start), 0 otherwise (the window as it is).
func matchSize(n *planner.Join) int64 {
	if !carriesWindows(n) || sessionKeys(n) {
		return 0
	}
	return n.Left.Source.Window.Size
}

// matchWindow is the window a row matches by: w, or for a join matching
// by starts the left's window starting where w does.
func matchWindow(w *types.Window, size int64) *types.Window {
	if w == nil || size == 0 {
		return w
	}
	return &types.Window{Start: w.Start, End: w.Start + size}
}

// withBounds returns vals followed by the bounds of w.
func withBounds(vals []any, w *types.Window) ([]any, error) {
	if w == nil {
		return nil, fmt.Errorf("a row of a windowed source has no window")
	}
	return append(vals[:len(vals):len(vals)], w.Start, w.End), nil
}

// splitBounds splits the trailing window bounds off vals (written by
// withBounds).
func splitBounds(vals []any) ([]any, *types.Window, error) {
	n := len(vals) - len(windowBoundColumns)
	if n < 0 {
		return nil, nil, fmt.Errorf("a windowed join row has no window bounds")
	}
	start, ok1 := vals[n].(int64)
	end, ok2 := vals[n+1].(int64)
	if !ok1 || !ok2 {
		return nil, nil, fmt.Errorf("a windowed join row's window bounds are %v, %v, not BIGINTs", vals[n], vals[n+1])
	}
	return vals[:n], &types.Window{Start: start, End: end}, nil
}

// appendKeyWindow appends a repartitioned row's window to its key bytes
// in the join's windowed key format.
func appendKeyWindow(n *planner.Join, k []byte, w *types.Window) ([]byte, error) {
	if w == nil {
		return nil, fmt.Errorf("a row of a windowed source has no window")
	}
	return format.AppendWindow(k, *w, sessionKeys(n)), nil
}

// joinInnerKey strips the window off a repartitioned windowed key (the row's
// own window comes with its value).
func joinInnerKey(n *planner.Join, b []byte) ([]byte, error) {
	inner, _, err := format.DecodeWindowedKey(b, sessionKeys(n))
	return inner, err
}
