package physical

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
	"github.com/sqlstream/sqlstream/state"
)

// suppressStore is the EMIT FINAL buffer's store.
const suppressStore = "Aggregate-Aggregate-Suppress"

// windowAggOp aggregates per (group key, window) in event time.
//
// Stream time is the largest record timestamp the task has seen. A window
// accepts records while stream time < window end + grace; a record for a
// window already closed is dropped from it, counted and logged (and sent
// to late.records.topic when set). Tumbling and hopping windows live in a
// window store (key ‖ start); session windows in a session store
// (key ‖ end ‖ start), merged when a record bridges them, the merged
// sessions deleted downstream with tombstones. With EMIT CHANGES every
// update is forwarded (through the output cache, when the task has one:
// a windowed group's latest per flush, outputCache); with EMIT FINAL updates go to a buffer store, and
// each window's last result is forwarded once stream time passes its end
// plus grace.
//
// EMIT FINAL emits every window that accepted a record exactly once,
// however far stream time jumps: per record, stream time advances, the
// record updates its open windows, every window closed by the new stream
// time leaves the buffer (by window end, then key) and only then does the
// store purge what fell out of its retention. The buffer holds whole
// result rows apart from the window store, so retention never takes a
// closed window from it (ksqlDB does lose such windows; see "Deliberate
// deviations" in qtt/doc.go). The buffer is changelogged and keeps the
// stream time too, so a restart neither loses nor repeats a final result.
type windowAggOp struct {
	*aggregateOp
	w        *ast.WindowExpr
	windows  *state.WindowStore
	sessions *state.SessionStore
	buffer   Store
	bufCodec format.Codec // the buffer's values (bufferColumns)
	bufKeys  format.Codec // the group key in the buffer's keys
	// wholeRows: the buffer's values are whole result rows (legacy).
	wholeRows bool
	// bufferFrom is where the buffer's live keys start: every key below
	// it was emitted and deleted (nil: not known yet). Closed windows
	// never come back, so emitClosed scans from here, not over the
	// deleted keys an LSM store keeps as tombstones for a while.
	bufferFrom []byte
	// nextEnd is at most the smallest window end in the buffer (valid
	// when nextKnown): till stream time passes it no window can close,
	// so emitClosed reads nothing (a store scan per record otherwise).
	nextEnd    int64
	nextKnown  bool
	streamTime int64
	purged     int64
	lastRecord int64 // wall clock of the last record, for idle closing
	// open are the distinct window intervals still accepting records.
	open openWindows
	// Reused per record: the downstream operators copy what they keep.
	starts  []int64
	win     types.Window
	vals    []any
	timeBuf []byte
	keyBuf  []byte
	// The EMIT FINAL buffer's group key and key, reused: the store
	// copies the keys it keeps.
	bufKeyBuf, bufKey []byte
}

// opened records that a window received a record.
func (op *windowAggOp) opened(w types.Window) {
	end := w.End
	if op.sessions != nil {
		end += op.w.Size // sessions close gap + grace after their end
	}
	op.open.add(w, end)
}

// pruneOpen forgets closed windows and publishes the open count.
func (op *windowAggOp) pruneOpen() {
	op.open.prune(op.streamTime, op.w.Grace)
	if c := op.env.OpenWindows; c != nil {
		c.Store(int64(op.open.len()))
	}
}

// nowFunc is the wall clock in epoch millis.
func nowFunc() int64 { return time.Now().UnixMilli() }

// idleClose advances stream time by the wall clock once the task has had
// no records for window.close.idle.ms, so a quiet partition still emits
// its final windows (stream time becomes now minus the idle time; event
// time is assumed to follow the wall clock).
func (op *windowAggOp) idleClose(now int64) error {
	idle := op.env.IdleCloseMs
	if op.lastRecord == 0 || now-op.lastRecord < idle {
		return nil
	}
	if t := now - idle; t > op.streamTime {
		if err := op.advance(t); err != nil {
			return err
		}
		return op.emitClosed()
	}
	return nil
}

func newWindowAggOp(env *TaskEnv, n *planner.Aggregate, store string, formats aggFormats, next Processor) (*windowAggOp, error) {
	base, err := newAggregateOp(env, n, store, formats, next)
	if err != nil {
		return nil, err
	}
	op := &windowAggOp{aggregateOp: base, w: n.Window, streamTime: -1 << 63, purged: -1 << 63, wholeRows: formats.legacy}
	if t := env.InitialStreamTime; t != nil {
		op.streamTime = *t
		op.publishStreamTime()
	}
	if env.IdleCloseMs > 0 && n.Final {
		env.onPunctuate(op.idleClose)
	}
	if n.Window.Kind == ast.Session {
		op.sessions = state.NewSessionStore(base.store)
	} else {
		op.windows = state.NewWindowStore(base.store)
		// A segment per purge step (purge): each Purge visits the
		// segments it empties and the one it cuts, not every window.
		if err := op.windows.UseSegments(max(windowRetention(n.Window)/10, 1)); err != nil {
			return nil, err
		}
	}
	if n.Final {
		if op.buffer, err = env.store(suppressStore); err != nil {
			return nil, err
		}
		if err := op.restoreStreamTime(); err != nil {
			return nil, err
		}
		if op.bufCodec, err = format.NewValueCodec(formats.buffer, bufferColumns(n, formats.legacy)); err != nil {
			return nil, fmt.Errorf("%s values: %w", suppressStore, err)
		}
		if op.bufKeys, err = format.NewKeyCodec(formats.bufferKeys, n.Schema().Keys()); err != nil {
			return nil, fmt.Errorf("%s keys: %w", suppressStore, err)
		}
	}
	return op, err
}

// bufferColumns are the columns of the EMIT FINAL buffer's values (after
// their 8-byte timestamp): the aggregate's results, each named after its
// accumulator (accumulatorColumns; the group key is in the buffer key),
// so a window buffered before an upgrade reads a kept aggregate's
// result by name and an added one's as missing, which emitBuffered
// turns into the aggregate's initial result (initialResults). Legacy buffers (wholeRows)
// hold the whole result row, keys included, by position (C0…Cn).
func bufferColumns(n *planner.Aggregate, wholeRows bool) []types.Column {
	out := n.Schema().Columns
	if wholeRows {
		cols := make([]types.Column, len(out))
		for i, c := range out {
			cols[i] = types.Column{Name: fmt.Sprintf("C%d", i), Type: c.Type}
		}
		return cols
	}
	accs := accumulatorColumns(n, false)
	cols := make([]types.Column, len(accs))
	for i, a := range accs {
		cols[i] = types.Column{Name: a.Name, Type: out[len(n.Keys)+i].Type}
	}
	return cols
}

func (op *windowAggOp) Process(row *types.Row) error {
	if op.env.IdleCloseMs > 0 {
		op.lastRecord = nowFunc() // only idle closing needs the wall clock
	}
	if err := op.advance(row.Time); err != nil {
		return err
	}
	// The stores copy the keys they keep: one buffer serves every record.
	key, err := op.key.Encode(op.keyBuf[:0], row.Values[:op.nkeys])
	if err != nil {
		return err
	}
	if key != nil {
		op.keyBuf = key
	}
	if op.sessions != nil {
		err = op.session(key, row)
	} else {
		err = op.timeWindows(key, row)
	}
	if err != nil {
		return err
	}
	if op.buffer != nil {
		if err := op.emitClosed(); err != nil {
			return err
		}
	}
	op.pruneOpen()
	return op.purge()
}

// windowStarts returns the starts of the tumbling or hopping windows that
// contain ts, valid until the next call.
func (op *windowAggOp) windowStarts(ts int64) []int64 {
	size, advance := op.w.Size, op.w.Advance
	if op.w.Kind == ast.Tumbling || advance <= 0 {
		advance = size
	}
	first := floorDiv(ts-size+advance, advance) * advance
	out := op.starts[:0]
	for s := max(first, 0); s <= ts; s += advance {
		if ts < s+size {
			out = append(out, s)
		}
	}
	op.starts = out
	return out
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// closed reports whether a window ending at end no longer accepts records.
func (op *windowAggOp) closed(end int64) bool {
	return op.streamTime >= end+op.w.Grace
}

func (op *windowAggOp) timeWindows(key []byte, row *types.Row) error {
	late := false
	for _, start := range op.windowStarts(row.Time) {
		end := start + op.w.Size
		if op.closed(end) {
			late = true
			continue
		}
		if err := op.updateWindow(key, row, types.Window{Start: start, End: end}); err != nil {
			return err
		}
	}
	if late {
		op.late(row)
	}
	return nil
}

// updateWindow applies a row to one time window and emits the result.
// The window's accumulators stay decoded in the store's cache (aggValue),
// as the aggregate operator keeps its groups'.
func (op *windowAggOp) updateWindow(key []byte, row *types.Row, w types.Window) error {
	ts, existed, err := op.loadWindow(key, w.Start)
	if err != nil {
		return err
	}
	var old oldResult
	if existed {
		old = knownOld(op.priorResults(row))
	} else {
		old = knownOld(nil)
	}
	copy(op.before, op.accs)
	if err := op.apply(row); err != nil {
		op.env.log(ExpressionError, "value", err.Error(), nil)
		return nil
	}
	ts = max(ts, row.Time)
	cell := op.newCell()
	vals := op.newResults(false)
	if err := op.windows.PutLazy(key, w.Start, op.windowValue(cell, ts, vals)); err != nil {
		return err
	}
	return op.result(row, ts, w, old, vals)
}

// windowCell is a window's aggValue with room for its accumulators and
// their results, so a window of up to cellAccs aggregates costs one
// allocation per update instead of three: every record of a tumbling or
// hopping window puts one (most of them to a new window).
type windowCell struct {
	v       aggValue
	accs    [cellAccs]any
	results [cellAccs]any
}

const cellAccs = 2

// newCell is the cell of the window's new value, nil when its
// accumulators do not fit one. For a new window (nothing loaded) it is
// also where newResults puts the results, as it puts them into a loaded
// value's.
func (op *windowAggOp) newCell() *windowCell {
	n := len(op.accs)
	if n > cellAccs {
		return nil
	}
	c := &windowCell{}
	if op.loaded == nil {
		c.v.results = c.results[:n:n]
		op.loaded = &c.v
	}
	return c
}

// windowValue is the window's new value, in cell when there is one: the
// accumulators as they are now (copied: the operator reuses op.accs) and
// their results.
func (op *windowAggOp) windowValue(c *windowCell, ts int64, results []any) *aggValue {
	if c == nil {
		return &aggValue{state: op.state, ts: ts, accs: slices.Clone(op.accs), results: results, size: op.size}
	}
	n := copy(c.accs[:], op.accs)
	c.v = aggValue{state: op.state, ts: ts, accs: c.accs[:n:n], results: results, size: op.size}
	return &c.v
}

// loadWindow reads key's window at start into the accumulators (initial
// ones for a new window): from the value the cache keeps decoded, else
// from its bytes.
func (op *windowAggOp) loadWindow(key []byte, start int64) (int64, bool, error) {
	l, b, err := op.windows.GetLazy(key, start)
	if err != nil {
		return 0, false, err
	}
	ts, hit, b, err := op.cached(l, b)
	if hit || err != nil {
		return ts, hit, err
	}
	ts, err = op.decode(b)
	op.size = 8 + 16*len(op.accs)
	if b != nil {
		op.size = len(b)
	}
	return ts, b != nil, err
}

// decode loads accumulators from a stored value (initial ones for nil).
func (op *aggregateOp) decode(b []byte) (int64, error) {
	if b == nil {
		for i, c := range op.n.Calls {
			op.accs[i] = c.Agg.Init()
		}
		return -1 << 63, nil
	}
	if len(b) < 8 {
		return 0, &state.CorruptError{What: aggregateStore + " state"}
	}
	return int64(binary.BigEndian.Uint64(b)), op.state.Decode(b[8:], op.accs)
}

// encode serializes the accumulators after ts into a scratch buffer,
// valid until the next call (stores copy what they are given).
func (op *aggregateOp) encode(ts int64) ([]byte, error) {
	buf := binary.BigEndian.AppendUint64(op.encBuf[:0], uint64(ts))
	buf, err := op.state.Encode(buf, op.accs)
	op.encBuf = buf
	return buf, err
}

// oldResult is a window's previous result, when the operator knows it:
// a table filter above (HAVING) turns a failing row into a delete only
// when the previous one passed, so a window that never passed is never
// deleted (Kafka Streams' KTable filter with old values).
type oldResult struct {
	vals  []any // nil: the window had no result
	known bool
}

func knownOld(vals []any) oldResult { return oldResult{vals: vals, known: true} }

// result forwards (EMIT CHANGES) or buffers (EMIT FINAL) a window's new
// result; old is its previous one, fresh the aggregates' results of the
// accumulators when known (newResults), else nil.
func (op *windowAggOp) result(row *types.Row, ts int64, w types.Window, old oldResult, fresh []any) error {
	op.opened(w)
	if op.buffer == nil {
		op.win = w
		return op.forwardWindow(row, ts, &op.win, old, fresh)
	}
	r, vals := op.newBuffered(row, fresh)
	op.nextEnd = min(op.nextEnd, w.End)
	bk, err := op.bufKeys.Encode(op.bufKeyBuf[:0], row.Values[:op.nkeys])
	if err != nil {
		return err
	}
	op.bufKeyBuf = bk
	op.bufKey = appendBufferKey(op.bufKey[:0], w, bk)
	*r = bufferedResult{codec: op.bufCodec, ts: ts, vals: vals}
	return state.PutLazy(op.buffer, op.bufKey, r)
}

// bufferedCell is a buffered result with room for its values: every
// update of an EMIT FINAL window buffers a new result (five per record of
// q5's hopping windows), one allocation instead of two when its values fit.
type bufferedCell struct {
	r    bufferedResult
	vals [bufferedCellVals]any
}

const bufferedCellVals = 4

// newBuffered makes a window's buffered result and its values: the group
// key's (only when the buffer keeps whole rows: else the key is in the
// buffer key) then the aggregates' results, fresh when known.
func (op *windowAggOp) newBuffered(row *types.Row, fresh []any) (*bufferedResult, []any) {
	if fresh == nil {
		vals := op.results(row)
		if !op.wholeRows {
			vals = vals[op.nkeys:]
		}
		return &bufferedResult{}, vals
	}
	n := len(fresh)
	if op.wholeRows {
		n += op.nkeys
	}
	var r *bufferedResult
	var vals []any
	if n <= bufferedCellVals {
		c := &bufferedCell{}
		r, vals = &c.r, c.vals[:0:n]
	} else {
		r, vals = &bufferedResult{}, make([]any, 0, n)
	}
	if op.wholeRows {
		vals = append(vals, row.Values[:op.nkeys]...)
	}
	return r, append(vals, fresh...)
}

// bufferedResult is a window's result in the EMIT FINAL buffer, kept as
// values in the store's cache (a state.Lazy): a window updated by many
// records before it closes is encoded once per write-down, not once per
// update. Its bytes are the 8-byte timestamp, then vals in the buffer's
// value codec, as a Put of them wrote; vals is the result's own slice.
type bufferedResult struct {
	codec format.Codec
	ts    int64
	vals  []any
}

var _ state.Lazy = (*bufferedResult)(nil)

func (r *bufferedResult) AppendBytes(dst []byte) ([]byte, error) {
	return r.codec.Encode(binary.BigEndian.AppendUint64(dst, uint64(r.ts)), r.vals)
}

// Size estimates the bytes for the cache's bound until they are made.
func (r *bufferedResult) Size() int { return 8 + 16*len(r.vals) }

func (op *windowAggOp) forwardWindow(row *types.Row, ts int64, w *types.Window, old oldResult, fresh []any) error {
	out := &op.out
	if fresh != nil {
		op.vals = append(append(op.vals[:0], row.Values[:op.nkeys]...), fresh...)
	} else {
		op.vals = op.resultsInto(op.vals[:0], row)
	}
	*out = types.Row{Values: op.vals, Time: ts, Partition: row.Partition, Offset: row.Offset, Window: w,
		Old: old.vals, HasOld: old.known}
	return op.next.Process(out) // windowed updates are never cached (newAggregateOp)
}

// bufferKey orders the EMIT FINAL buffer by window end, then group key,
// then start (sessions of one key may share an end), so closed windows
// are a prefix of the store and leave it in that order:
//
//	<end, 8 bytes, sign flipped> <group key> <start, 8 bytes, sign flipped>
func bufferKey(w types.Window, key []byte) []byte {
	return appendBufferKey(make([]byte, 0, 16+len(key)), w, key)
}

// appendBufferKey appends w's buffer key (bufferKey) to dst.
func appendBufferKey(dst []byte, w types.Window, key []byte) []byte {
	b := binary.BigEndian.AppendUint64(dst, uint64(w.End)^(1<<63))
	b = append(b, key...)
	return binary.BigEndian.AppendUint64(b, uint64(w.Start)^(1<<63))
}

// bufferWindow is the window of a buffer key.
func bufferWindow(k []byte) *types.Window {
	return &types.Window{End: int64(binary.BigEndian.Uint64(k[:8]) ^ (1 << 63)),
		Start: int64(binary.BigEndian.Uint64(k[len(k)-8:]) ^ (1 << 63))}
}

// emitClosed forwards and forgets the buffered results of every window
// that closed: end + grace <= stream time, and for a session end + gap +
// grace (Kafka Streams suppresses session windows with the gap added to
// the grace period).
func (op *windowAggOp) emitClosed() error {
	closeAfter := op.w.Grace
	if op.sessions != nil {
		closeAfter += op.w.Size
	}
	limit := op.streamTime - closeAfter + 1 // windows ending before it closed
	if op.nextKnown && op.nextEnd >= limit {
		return nil
	}
	bound := binary.BigEndian.AppendUint64(nil, uint64(limit)^(1<<63))
	// The closed entries' keys and values are copied into one buffer
	// made for this scan (never reused: what emitBuffered decodes may
	// keep pointing into it), ends recorded as they are appended.
	type entry struct{ kEnd, vEnd int }
	var buf []byte
	var done []entry
	err := op.buffer.Range(op.bufferFrom, bound, func(k, v []byte) bool {
		buf = append(buf, k...)
		kEnd := len(buf)
		buf = append(buf, v...)
		done = append(done, entry{kEnd, len(buf)})
		return true
	})
	if err != nil {
		return err
	}
	start := 0
	for _, e := range done {
		k, v := buf[start:e.kEnd:e.kEnd], buf[e.kEnd:e.vEnd:e.vEnd]
		start = e.vEnd
		if err := op.emitBuffered(k, v); err != nil {
			return err
		}
		if err := op.buffer.Put(k, nil); err != nil {
			return err
		}
	}
	op.bufferFrom = bound
	if err := op.findNextEnd(bound); err != nil {
		return err
	}
	if op.sessions != nil {
		// A session ending exactly at the bound's last millisecond may
		// still merge with a record (FindSessions keeps it), and the
		// merged session keep its end: scan that end again.
		op.bufferFrom = binary.BigEndian.AppendUint64(nil, uint64(op.streamTime-closeAfter)^(1<<63))
	}
	return nil
}

// findNextEnd reads the end of the first window left in the buffer from
// bound on (none: no window can close until one is buffered).
func (op *windowAggOp) findNextEnd(bound []byte) error {
	op.nextEnd, op.nextKnown = math.MaxInt64, true
	return op.buffer.Range(bound, nil, func(k, _ []byte) bool {
		op.nextEnd = bufferWindow(k).End
		return false
	})
}

func (op *windowAggOp) emitBuffered(k, v []byte) error {
	if len(k) < 16 || len(v) < 8 {
		return &state.CorruptError{What: fmt.Sprintf("%s entry %q", suppressStore, k)}
	}
	row := &types.Row{Values: make([]any, len(op.n.Schema().Columns)), Time: int64(binary.BigEndian.Uint64(v[:8])), Window: bufferWindow(k)}
	if op.wholeRows {
		if err := op.bufCodec.Decode(v[8:], row.Values); err != nil {
			return &state.CorruptError{What: fmt.Sprintf("%s entry %q (%v)", suppressStore, k, err)}
		}
		return op.next.Process(row)
	}
	if err := op.bufKeys.Decode(k[8:len(k)-8], row.Values[:op.nkeys]); err != nil {
		return &state.CorruptError{What: fmt.Sprintf("%s key %q (%v)", suppressStore, k, err)}
	}
	if err := op.bufCodec.Decode(v[8:], row.Values[op.nkeys:]); err != nil {
		return &state.CorruptError{What: fmt.Sprintf("%s entry %q (%v)", suppressStore, k, err)}
	}
	if err := op.initialResults(row.Values[op.nkeys:]); err != nil {
		return err
	}
	return op.next.Process(row)
}

// initialResults gives each NULL result of a buffered window the result
// of its aggregate's initial accumulator. A window buffered before an
// upgrade added an aggregate has no column for it (and closed with no
// record after the upgrade, or its result would have been buffered
// again whole): it gets what the aggregate gives a group that saw none
// of its records (COUNT 0, SUM 0, COLLECT_LIST [], MAX NULL), as the
// window store's accumulators read for it (aggState.Decode) and so as a
// pull query or an EMIT CHANGES update shows it. A kept aggregate's NULL
// result stays NULL: the aggregates whose results can be NULL (MIN,
// MAX, LATEST_BY_OFFSET, ATTR) start from a NULL result, the others
// never give one. So no record of which columns a row lacks is needed,
// which protobuf could not keep (a wrapped NULL and a missing field are
// both absent).
func (op *windowAggOp) initialResults(vals []any) error {
	for i, c := range op.n.Calls {
		if vals[i] != nil {
			continue
		}
		v, err := c.Agg.Result(c.Agg.Init())
		if err != nil {
			return fmt.Errorf("%s of a window buffered before an upgrade: %w", c.Call.Name, err)
		}
		vals[i] = v
	}
	return nil
}

// session merges the row into the key's overlapping sessions.
func (op *windowAggOp) session(key []byte, row *types.Row) error {
	ts, gap := row.Time, op.w.Size
	type found struct {
		start, end int64
		value      []byte
	}
	var olds []found
	err := op.sessions.FindSessions(key, ts-gap, ts+gap, func(start, end int64, v []byte) bool {
		if end+gap+op.w.Grace >= op.streamTime { // closed sessions are never merged again
			olds = append(olds, found{start, end, append([]byte(nil), v...)})
		}
		return true
	})
	if err != nil {
		return err
	}
	win := types.Window{Start: ts, End: ts}
	for _, o := range olds {
		win.Start, win.End = min(win.Start, o.start), max(win.End, o.end)
	}
	// Kafka Streams' session rule: a session is closed once stream time
	// passed its end plus the gap plus the grace period.
	if win.End+op.w.Size+op.w.Grace < op.streamTime {
		op.late(row)
		return nil
	}
	accTs := op.freshAccumulators()
	for _, o := range olds {
		t, err := op.mergeInto(o.value)
		if err != nil {
			return err
		}
		accTs = max(accTs, t)
		if err := op.sessions.Remove(key, o.start, o.end); err != nil {
			return err
		}
		if err := op.retractSession(row, t, types.Window{Start: o.start, End: o.end}, o.value); err != nil {
			return err
		}
	}
	if err := op.apply(row); err != nil {
		op.env.log(ExpressionError, "value", err.Error(), nil)
		return nil
	}
	accTs = max(accTs, ts)
	v, err := op.encode(accTs)
	if err != nil {
		return err
	}
	if err := op.sessions.Put(key, win.Start, win.End, v); err != nil {
		return err
	}
	// The merged session is a new windowed key: it had no result.
	return op.result(row, accTs, win, knownOld(nil), nil)
}

// storedResults returns the group key and results of the stored
// accumulators b, leaving the current accumulators as they were.
func (op *windowAggOp) storedResults(row *types.Row, b []byte) ([]any, error) {
	accs := make([]any, len(op.accs))
	if len(b) < 8 {
		return nil, &state.CorruptError{What: aggregateStore + " state"}
	}
	if err := op.state.Decode(b[8:], accs); err != nil {
		return nil, err
	}
	out := append(make([]any, 0, op.nkeys+len(accs)), row.Values[:op.nkeys]...)
	for i, c := range op.n.Calls {
		v, _ := c.Agg.Result(accs[i])
		out = append(out, v)
	}
	return out, nil
}

// freshAccumulators resets the accumulators to their initial values and
// returns the smallest timestamp.
func (op *windowAggOp) freshAccumulators() int64 {
	for i, c := range op.n.Calls {
		op.accs[i] = c.Agg.Init()
	}
	return -1 << 63
}

// mergeInto merges a stored session's accumulators into the current ones.
func (op *windowAggOp) mergeInto(b []byte) (int64, error) {
	if len(b) < 8 {
		return 0, &state.CorruptError{What: aggregateStore + " session state"}
	}
	other := make([]any, len(op.n.Calls))
	if err := op.state.Decode(b[8:], other); err != nil {
		return 0, err
	}
	for i, c := range op.n.Calls {
		m, ok := c.Agg.(interface{ Merge(a, b any) (any, error) })
		if !ok {
			return 0, fmt.Errorf("%s cannot merge session windows", c.Call.Name)
		}
		merged, err := m.Merge(op.accs[i], other[i])
		if err != nil {
			return 0, err
		}
		op.accs[i] = merged
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}

// retractSession deletes a merged-away session downstream (a tombstone for
// its windowed key, carrying its stored result b as the old value), or
// drops it from the EMIT FINAL buffer.
func (op *windowAggOp) retractSession(row *types.Row, ts int64, w types.Window, b []byte) error {
	if op.buffer != nil {
		bk, err := op.bufKeys.Encode(nil, row.Values[:op.nkeys])
		if err != nil {
			return err
		}
		return op.buffer.Put(bufferKey(w, bk), nil)
	}
	old, err := op.storedResults(row, b)
	if err != nil {
		return err
	}
	out := &types.Row{Values: make([]any, len(op.n.Schema().Columns)), Time: ts, Partition: row.Partition,
		Offset: row.Offset, Window: &w, Tombstone: true, Old: old, HasOld: true}
	copy(out.Values, row.Values[:op.nkeys])
	return op.next.Process(out) // windowed updates are never cached (newAggregateOp)
}

// late records a record dropped because its window closed.
func (op *windowAggOp) late(row *types.Row) {
	op.env.dropLate(fmt.Sprintf("Record with timestamp %d dropped: its window closed (stream time %d, grace %d ms)",
		row.Time, op.streamTime, op.w.Grace))
}

// purge drops windows older than the retention, at most every tenth of
// the retention of stream time. (purged starts at the smallest time:
// before-purged would overflow, purged+retention/10 cannot.)
func (op *windowAggOp) purge() error {
	retention := windowRetention(op.w)
	before := op.streamTime - retention
	if before <= 0 || before < op.purged+retention/10 {
		return nil
	}
	op.purged = before
	if op.sessions != nil {
		return op.sessions.Purge(before)
	}
	return op.windows.Purge(before)
}

// windowRetention is how long the store keeps a window: the RETENTION
// given, but never less than a window stays open (size + grace; for a
// session gap + grace after its end), so no open window loses its
// accumulators to a short RETENTION.
func windowRetention(w *ast.WindowExpr) int64 {
	return max(w.Retention, w.Size+w.Grace)
}

// advance moves stream time forward to ts (never back), publishes it
// and, with EMIT FINAL, keeps it in the buffer store.
func (op *windowAggOp) advance(ts int64) error {
	if ts <= op.streamTime {
		return nil
	}
	op.streamTime = ts
	op.publishStreamTime()
	if op.buffer == nil {
		return nil
	}
	return op.buffer.Put([]byte(streamTimeKey), binary.BigEndian.AppendUint64(op.timeBuf[:0], uint64(ts)))
}

func (op *windowAggOp) publishStreamTime() {
	if st := op.env.StreamTime; st != nil {
		st.Store(op.streamTime)
	}
}

// streamTimeKey holds a task's stream time in its EMIT FINAL buffer
// (changelogged with it), so that after a restart a window emitted before
// stays closed (a record for it is late, not a second final result) and a
// window closed but not yet emitted is emitted once. It sorts after every
// buffer key: no window ends at the largest time.
//
// Its value is the 8-byte stream time alone, and the buffer is
// TimestampInRecord, so its changelog record (key streamTimeKey) has an
// empty value stamped with the stream time as its timestamp; a restore
// puts that timestamp back as the value. Kept so, deliberately:
//   - An empty value is not a tombstone: Kafka deletes on a null value
//     (length -1) only. franz-go writes a non-nil empty slice as length
//     0 and reads it back as a non-nil empty slice, the runner keeps a
//     non-nil value non-nil (exec.changelogRecord), and the Restorer
//     stores ts in front of any non-nil value. Compaction keeps the last
//     record of the key, so the topic holds one stream-time record, and
//     never drops it for its age: the buffer's changelog is compact only
//     (no retention.ms, unlike the window store's compact,delete), and
//     delete.retention.ms applies to tombstones alone.
//   - It is written in the same changelog, in order, as the buffer's
//     deletes of emitted windows (and in the same transaction under
//     exactly_once_v2), so a restore never has a window deleted without
//     the stream time that closed it; the stream time in the committed
//     offsets' metadata (TaskEnv.InitialStreamTime) lags the changelog
//     under at_least_once, which replays the records since the commit.
//   - Kafka Streams keeps no such record: KTableSuppressProcessor holds
//     its observed stream time in memory and starts again from the next
//     record after a restart, and its buffer's changelog (the
//     InMemoryTimeOrderedKeyValueBuffer's) is keyed by the record's key
//     with a BufferValue (prior, old and new value, record context, then
//     the buffer time) under a "v" version header. Neither buffer's
//     changelog can be read by the other's engine (ours is keyed window
//     end ‖ group key ‖ start, with the results in the query's value
//     format), and a Confluent deserializer reading ours must pass over
//     this key: its empty value has no magic byte.
const streamTimeKey = "\xff\xff\xff\xff\xff\xff\xff\xffstream-time"

// restoreStreamTime continues from the stream time kept in the buffer.
// With idle closing, a restored task counts as having just seen a
// record, so a partition that stays quiet after the restart still closes
// its windows.
func (op *windowAggOp) restoreStreamTime() error {
	b, err := op.buffer.Get([]byte(streamTimeKey))
	if err != nil || len(b) != 8 {
		return err
	}
	op.streamTime = max(op.streamTime, int64(binary.BigEndian.Uint64(b)))
	op.publishStreamTime()
	if op.env.IdleCloseMs > 0 {
		op.lastRecord = nowFunc()
	}
	return nil
}
