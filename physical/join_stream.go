package physical

import (
	"fmt"
	"math"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
	"github.com/sqlstream/sqlstream/state"
)

// joinGrace is Kafka Streams' grace of the deprecated
// JoinWindows.of(d) ksqlDB uses without GRACE PERIOD: max(24h − 2d, 0).
func joinGrace(w *ast.JoinWindow) int64 {
	if w.Grace >= 0 {
		return w.Grace
	}
	return max(24*60*60*1000-2*w.Before, 0)
}

// streamJoinStores names the two window stores as Kafka Streams does for
// ksqlDB's joins (KSTREAM-JOINTHIS-N / -OUTERTHIS-N, -JOINOTHER-N+1 /
// -OUTEROTHER-N+1, N the step's base, b.streamJoinBase). "This" is the
// SQL left side, but the right one of a RIGHT join (a swapped LEFT join).
func streamJoinStores(n *planner.Join, base int) (left, right string) {
	this, other := "JOINTHIS", "OUTEROTHER"
	switch n.Type {
	case ast.InnerJoin:
		other = "JOINOTHER"
	case ast.FullJoin:
		this = "OUTERTHIS"
	}
	thisName := fmt.Sprintf("KSTREAM-%s-%010d-store", this, base)
	otherName := fmt.Sprintf("KSTREAM-%s-%010d-store", other, base+1)
	if n.Type == ast.RightJoin {
		return otherName, thisName
	}
	return thisName, otherName
}

// sharedStoreName is the outer join's shared store,
// KSTREAM-OUTERSHARED-N-store with N the "this" side's index.
func sharedStoreName(base int) string {
	return fmt.Sprintf("KSTREAM-OUTERSHARED-%010d-store", base)
}

// streamJoinBase is Kafka Streams' node index of the "this" side's
// store: ksqlDB's (ksqlStreamJoinBase), or for the queries of commands
// recorded before (Options.LegacyJoinStoreNumbers) the number they were
// given then (legacyStreamJoinBase).
func (b *builder) streamJoinBase(n *planner.Join) int {
	if b.opts.LegacyJoinStoreNumbers {
		return legacyStreamJoinBase(n)
	}
	if b.joinBases == nil {
		b.joinBases = ksqlStreamJoinBases(b.rootJoin)
	}
	return b.joinBases[n]
}

// legacyStreamJoinBase is how queries recorded before ksqlDB's node
// counting numbered a step's window stores: 8, plus 4 for each re-keyed
// side (not for an n-way step's right stream re-keyed only into the
// registry key format, planner.JoinInput.Aligned), plus the step's
// planner.Join.StoreShift, plus 20 for each nested step below. It is
// ksqlDB's for a single join, not for most n-way ones.
func legacyStreamJoinBase(n *planner.Join) int {
	base := 8 + n.StoreShift
	for in := &n.Left; in.Nested(); in = &in.Node.(*planner.Join).Left {
		base += 20
	}
	for _, in := range []*planner.JoinInput{&n.Left, &n.Right} {
		if in.Rekeyed() && !in.Aligned {
			base += 4
		}
	}
	return base
}

// streamWindow is one side's window store of a stream–stream join: key →
// every row of the side by time (duplicates kept), and the largest time
// put (the store's own stream time, found again in the store after a
// restart), below which minus the retention nothing is returned or kept
// (Kafka Streams' store-local expiry).
//
// Its cache answers the lookups near stream time (join_window_cache.go).
type streamWindow struct {
	w     *state.WindowStore
	name  string
	key   format.Codec
	value format.Codec
	// registryKeys: keys carry a schema id, which the other side's
	// store may write differently for equal keys (see otherKey).
	registryKeys bool
	cols         int
	observed     int64
	retention    int64
	cache        *windowCache
	peer         *streamWindow // the other side's store, whose time the cache follows
	purged       int64         // the last Purge bound
	scratch      []byte        // the encoded row of the put in progress (the store copies what it keeps)
	keyScratch   []byte        // the store key of the row in progress (storeKey)
}

// openStreamWindow opens one side's store of a join window w; keys are
// encoded as the join key's columns in format keys, rows (every column of
// the side) in format values.
// With bounds, each row is kept with its own window's bounds after its
// columns (join_window_rekey.go).
func openStreamWindow(env *TaskEnv, name string, src *planner.Source, keys, values format.Spec, keyTypes []*types.Type, w *ast.JoinWindow, retention int64, bounds bool) (*streamWindow, error) {
	sw, err := openWindowStore(env, name, src, keys, values, keyTypes, retention, bounds)
	if err != nil {
		return nil, err
	}
	sw.cache = newWindowCache(w.Before, w.After, windowCacheBudget)
	return sw, sw.warm()
}

func openWindowStore(env *TaskEnv, name string, src *planner.Source, keys, values format.Spec, keyTypes []*types.Type, retention int64, bounds bool) (*streamWindow, error) {
	s, err := env.store(name)
	if err != nil {
		return nil, err
	}
	w, err := state.NewDuplicatesWindowStore(s)
	if err != nil {
		return nil, err
	}
	// Five segments per purge step (purge): a Purge visits the segments
	// it empties and the one it cuts, a fetch the two or three its
	// window overlaps.
	if err := w.UseSegments(max(joinPurgeStep(retention)/5, 1)); err != nil {
		return nil, err
	}
	cols := windowColumns(src, bounds)
	sw := &streamWindow{w: w, name: name, cols: len(cols), observed: w.MaxStart(), retention: retention, purged: -1 << 63}
	_, sw.registryKeys = format.SchemaTypeOf(keys.Name)
	if sw.key, err = format.NewKeyCodec(keys, joinKeyColumns(keyTypes)); err != nil {
		return nil, err
	}
	sw.value, err = format.NewValueCodec(values, cols)
	return sw, err
}

// windowColumns are the columns a join window store keeps of a side's
// rows: all of them, as values, and with bounds the row's window.
func windowColumns(src *planner.Source, bounds bool) []types.Column {
	cols := make([]types.Column, len(src.Schema.Columns), len(src.Schema.Columns)+len(windowBoundColumns))
	for i, c := range src.Schema.Columns {
		cols[i] = types.Column{Name: c.Name, Type: c.Type, NS: types.ValueNS}
	}
	if bounds {
		cols = append(cols, windowBoundColumns...)
	}
	return cols
}

// streamMatch is one row of the other side within the window.
type streamMatch struct {
	values []any
	time   int64
	size   int32 // rowBytes of a cached row
}

// storeKey is joinStoreKey in this store's key format, into a buffer the
// next call reuses: the key is read while one row is processed, and the
// window store, the cache and the outer-join store copy what they keep.
func (sw *streamWindow) storeKey(key []any, w *types.Window) ([]byte, error) {
	b, err := sw.key.Encode(sw.keyScratch[:0], key)
	if err == nil && w != nil {
		b = format.AppendWindow(b, *w, true)
	}
	sw.keyScratch = b[:0]
	return b, err
}

// put stores a row, unless it is late: older than the store's stream
// time minus its retention, so that no read would ever return it (Kafka
// Streams drops a put into an expired segment). It reports whether the
// row was stored.
func (sw *streamWindow) put(key []byte, vals []any, ts int64) (bool, error) {
	sw.observed = max(sw.observed, ts)
	if ts < sw.observed-sw.retention {
		return false, nil
	}
	v, err := sw.value.Encode(sw.scratch[:0], vals)
	if err != nil {
		return false, err
	}
	sw.scratch = v[:0]
	dropped := sw.w.Dropped()
	if err := sw.w.Put(key, ts, v); err != nil || sw.w.Dropped() != dropped {
		return false, err
	}
	if sw.peer != nil {
		sw.cache.follow(sw.peer.observed)
	}
	sw.cache.put(key, vals, ts)
	return true, sw.purge()
}

// joinPurgeStep is the stream time between purges of a join store of
// the given retention: Kafka Streams' segment interval for join stores.
func joinPurgeStep(retention int64) int64 { return max(retention/2, 60000) }

// purge deletes the rows past the retention from the local store, at most
// once per segment interval of the store's stream time (Kafka Streams'
// join stores: max(retention / 2, 1 minute)). No changelog tombstones:
// as for the window stores of aggregations, the changelog topic
// (compact,delete, retention.ms = retention + 1 day) expires them, and
// rows restored from it are skipped by reads and purged again.
func (sw *streamWindow) purge() error {
	before := sw.observed - sw.retention
	if before <= 0 || before < sw.purged+joinPurgeStep(sw.retention) {
		return nil
	}
	sw.purged = before
	return sw.w.Purge(before)
}

// fetch returns key's rows in [from, to] (n columns each), from the cache
// when it holds them all. Their values are shared: callers copy them.
func (sw *streamWindow) fetch(key []byte, from, to int64, n int) ([]streamMatch, error) {
	from = max(from, sw.observed-sw.retention+1)
	if to < max(from, 0) {
		return nil, nil // the store holds no negative times
	}
	if out, ok := sw.cache.fetch(key, from, to); ok {
		return out, nil
	}
	var out []streamMatch
	var derr error
	err := sw.w.Fetch(key, from, to, func(ts int64, v []byte) bool {
		vals := make([]any, n)
		if derr = sw.value.Decode(v, vals); derr != nil {
			return false
		}
		out = append(out, streamMatch{values: vals, time: ts})
		return true
	})
	if err == nil {
		err = derr
	}
	return out, err
}

// warm fills the cache of a store that already holds rows (the task
// restarted) with the rows the cache keeps behind its newest time
// (MaxStart, which store-local expiry counts from too).
func (sw *streamWindow) warm() error {
	if sw.observed < 0 {
		return nil // an empty store (its stream time is MaxStart's)
	}
	from := sw.cache.restart(sw.observed)
	var derr error
	err := sw.w.FetchAll(from, math.MaxInt64, func(key []byte, ts int64, v []byte) bool {
		vals := make([]any, sw.cols)
		if derr = sw.value.Decode(v, vals); derr != nil {
			return false
		}
		sw.cache.put(key, vals, ts)
		return true
	})
	if err == nil {
		err = derr
	}
	return err
}

// streamStreamJoin is one side of a windowed stream–stream join (Kafka
// Streams' KStreamKStreamJoin without the spurious-result fix, as ksqlDB
// runs joins without GRACE PERIOD): a row joins every row of the other
// side with the same key whose time is within the window, then is stored;
// an unmatched row of a preserved side is emitted at once with nulls.
type streamStreamJoin struct {
	joiner
	side        planner.JoinSide
	this, other *streamWindow
	before      int64 // other.ts >= ts - before
	after       int64 // other.ts <= ts + after
	outer       bool
	otherCols   int
	// size: rows match by their window's start and this size (0: by
	// their window); bounds: the stores keep each row's own window
	// (join_window_rekey.go).
	size   int64
	bounds bool
	// shared holds unmatched rows of outer joins with a GRACE PERIOD
	// until their window closes (nil: emit them at once); clock is the
	// task's stream time, shared by both sides.
	shared *outerStore
	clock  *joinClock
	env    *TaskEnv
	next   Processor
	out    types.Row // the output row (a Processor keeps no row it is given)
	vals   rowValues // the output rows' Values: one slice refilled when next borrows
}

func (op *streamStreamJoin) Process(row *types.Row) error {
	keyVal, vals := op.split(row)
	if row.Tombstone || nullJoinKey(row, keyVal) {
		if !row.Tombstone && op.outer {
			return op.emit(nil, timed{vals: vals, ts: row.Time, w: row.Window}, timed{}, row.Time, row) // KIP-962
		}
		op.env.skip()
		return nil
	}
	if err := op.clock.advance(row.Time); err != nil {
		return err
	}
	if op.shared != nil && row.Time == op.clock.time {
		if err := op.sweep(row); err != nil {
			return err
		}
	}
	mw := matchWindow(row.Window, op.size)
	k, err := op.this.storeKey(keyVal, mw)
	if err != nil {
		return err
	}
	ko, err := op.otherKey(k, keyVal, mw)
	if err != nil {
		return err
	}
	matches, err := op.other.fetch(ko, row.Time-op.before, row.Time+op.after, op.otherCols)
	if err != nil {
		return err
	}
	stored, err := op.stored(vals, row.Window)
	if err != nil {
		return err
	}
	matched := false
	for _, m := range matches {
		mvals, mwin, err := op.ownWindow(m.values, row.Window)
		if err != nil {
			return err
		}
		ok, err := op.emitMatch(keyVal, timed{vals: vals, ts: row.Time, w: row.Window}, timed{vals: mvals, ts: m.time, w: mwin}, max(row.Time, m.time), row)
		if err != nil || !ok {
			if err != nil {
				return err
			}
			continue // the residual rejects the pair
		}
		matched = true
		if op.shared != nil {
			if err := op.shared.drop(m.time, 1-sideIndex(op.side), ko); err != nil {
				return err
			}
		}
	}
	if !matched && op.outer {
		if err := op.unmatched(k, keyVal, vals, stored, row); err != nil {
			return err
		}
	}
	put, err := op.this.put(k, stored, row.Time)
	if err == nil && !put {
		op.env.dropLate(fmt.Sprintf("Record with timestamp %d dropped from join store %s: older than its stream time %d minus the retention %d ms, it can join no later record",
			row.Time, op.this.name, op.this.observed, op.this.retention))
	}
	return err
}

// otherKey is the other side's store key of the join key: this side's
// bytes k, unless keys carry a schema id (the two stores register the
// key schema under their changelogs' subjects, and a registry may give
// each its own id).
func (op *streamStreamJoin) otherKey(k []byte, keyVal []any, w *types.Window) ([]byte, error) {
	if !op.other.registryKeys {
		return k, nil
	}
	return op.other.storeKey(keyVal, w)
}

// unmatched emits a preserved side's row with nulls now (no GRACE, or its
// window already closed) or keeps it (as stored) in the shared store
// until it closes.
func (op *streamStreamJoin) unmatched(k []byte, keyVal []any, vals, stored []any, row *types.Row) error {
	if op.shared == nil || row.Time+op.after < op.clock.time {
		return op.emit(keyVal, timed{vals: vals, ts: row.Time, w: row.Window}, timed{}, row.Time, row)
	}
	return op.shared.put(row.Time, sideIndex(op.side), k, stored)
}

// stored is what the window stores keep of a row: its columns, and with
// bounds its window's.
func (op *streamStreamJoin) stored(vals []any, w *types.Window) ([]any, error) {
	if !op.bounds {
		return vals, nil
	}
	return withBounds(vals, w)
}

// ownWindow splits a stored row into its columns and its own window
// (without bounds, w: the windows matched are equal).
func (op *streamStreamJoin) ownWindow(stored []any, w *types.Window) ([]any, *types.Window, error) {
	if !op.bounds {
		return stored, w, nil
	}
	return splitBounds(stored)
}

// split returns the join key and this side's columns of row.
func (op *streamStreamJoin) split(row *types.Row) ([]any, []any) {
	return joinKeyOf(row, joinInput(op.n, op.side), op.n.KeyWidth())
}

func (op *streamStreamJoin) emit(key []any, this, other timed, ts int64, in *types.Row) error {
	_, err := op.emitMatch(key, this, other, ts, in)
	return err
}

// emitMatch emits the joined row unless the join's residual condition
// rejects the pair (a pair with a missing side is always emitted), and
// reports whether it did.
func (op *streamStreamJoin) emitMatch(key []any, this, other timed, ts int64, in *types.Row) (bool, error) {
	l, r := this, other
	if op.side == planner.JoinRight {
		l, r = other, this
	}
	values := op.joinTimedInto(op.vals.get(len(op.n.Columns), 0), key, l, r)
	if l.vals != nil && r.vals != nil && !op.accepts(values) {
		return false, nil
	}
	// the left's window (time windows matched by their starts)
	out := &op.out
	*out = types.Row{Values: values, Time: ts, Partition: in.Partition, Offset: in.Offset, NullKey: key == nil, Window: matchWindow(in.Window, op.size)}
	return true, op.next.Process(out)

}

// joinKeyColumns are the columns of a join key's store and topic codecs
// (K, K2, … : only the types and the order matter).
func joinKeyColumns(keyTypes []*types.Type) []types.Column {
	cols := make([]types.Column, len(keyTypes))
	for i, t := range keyTypes {
		cols[i] = types.Column{Name: "K", Type: t, NS: types.KeyNS}
		if i > 0 {
			cols[i].Name = fmt.Sprintf("K%d", i+1)
		}
	}
	return cols
}

var _ Processor = (*streamStreamJoin)(nil)
