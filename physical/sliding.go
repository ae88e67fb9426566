package physical

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
	"github.com/sqlstream/sqlstream/state"
)

// Sliding windows, Kafka Streams' SlidingWindows semantics (which ksqlDB
// never offered): a window is fixed in size (the time difference D) and
// defined by records, not by the clock. Every record at time t has a left
// window [t-D, t] ending at it, and a right window [t+1, t+1+D] starting
// just after it that exists while it holds records. A record updates its
// left window and every existing window it falls into, and creates the
// right windows it makes non-empty. Windows are inclusive at both ends.
//
// The operator keeps the group's raw argument rows (in the window store,
// keyed by time, duplicates kept), so each affected window is aggregated
// from its records: no subtraction is needed, at the price of reading
// the records within 2·D of the new one. A window is closed once stream
// time passed its end plus the grace period; a record that only falls
// into closed windows is late.

// slidingRawStore holds the raw argument rows of sliding windows.
const slidingRawStore = "Aggregate-Sliding-Records"

type slidingOp struct {
	*windowAggOp
	raw      Store
	rawCodec format.Codec
	// rawKeys encodes the group key of the raw rows' keys (under their
	// changelog's key subject, as the EMIT FINAL buffer's keys are under
	// theirs).
	rawKeys format.Codec
	nargs   int
	seq     uint32
}

func newSlidingOp(w *windowAggOp, formats aggFormats) (*slidingOp, error) {
	raw, err := w.env.store(slidingRawStore)
	if err != nil {
		return nil, err
	}
	cols := rawColumns(w.n, formats.legacy)
	codec, err := format.NewValueCodec(formats.raw, cols)
	if err != nil {
		return nil, fmt.Errorf("%s values: %w", slidingRawStore, err)
	}
	keys, err := format.NewKeyCodec(formats.rawKeys, w.n.Schema().Keys())
	if err != nil {
		return nil, fmt.Errorf("%s keys: %w", slidingRawStore, err)
	}
	return &slidingOp{windowAggOp: w, raw: raw, rawCodec: codec, rawKeys: keys, nargs: len(cols)}, nil
}

// rawColumns are the columns of a sliding window's raw rows (after their
// 8-byte timestamp): every call's arguments, named after the call's
// accumulator as the GROUP BY repartition topic names them
// (<accumulator>_ARG_j, prepSchema), or A<i>_<j> by position for legacy
// stores.
func rawColumns(n *planner.Aggregate, legacy bool) []types.Column {
	if !legacy {
		return prepSchema(n, false).Values()
	}
	cols := make([]types.Column, 0, 4)
	for i, c := range n.Calls {
		for j, a := range c.Args {
			cols = append(cols, types.Column{Name: fmt.Sprintf("A%d_%d", i, j), Type: a.Type()})
		}
	}
	return cols
}

// rawKey is key ‖ time (8 bytes, order-preserving) ‖ seq.
func rawKey(key []byte, ts int64, seq uint32) []byte {
	b := append(make([]byte, 0, len(key)+12), key...)
	b = binary.BigEndian.AppendUint64(b, uint64(ts)^(1<<63))
	return binary.BigEndian.AppendUint32(b, seq)
}

// ownRawKey reports whether the raw store key k is one of key's rows: a
// group key in a binary format (KAFKA, AVRO) may be a prefix of another
// group's, whose rows then sort inside key's range.
func ownRawKey(k, key []byte) bool { return len(k) == len(key)+12 && bytes.HasPrefix(k, key) }

// rawRecord is one stored argument row of a group.
type rawRecord struct {
	ts   int64
	args []any
}

// Process implements Processor for sliding windows.
func (op *slidingOp) Process(row *types.Row) error {
	op.lastRecord = nowFunc()
	if err := op.advance(row.Time); err != nil {
		return err
	}
	d, t := op.w.Size, row.Time
	if op.closed(t + d) { // every window holding t ends by t+d
		op.late(row)
		return nil
	}
	rk, err := op.rawKeys.Encode(nil, row.Values[:op.nkeys])
	if err != nil {
		return err
	}
	if err := op.store(rk, row); err != nil {
		return err
	}
	recs, err := op.records(rk, t-2*d-1, t+2*d+1)
	if err != nil {
		return err
	}
	for _, w := range affectedWindows(recs, t, d) {
		if op.closed(w.End) {
			continue
		}
		if err := op.emitSliding(row, w, recs); err != nil {
			return err
		}
	}
	if op.buffer != nil {
		if err := op.emitClosed(); err != nil {
			return err
		}
	}
	op.pruneOpen()
	return op.purgeRaw(rk)
}

func (op *slidingOp) store(key []byte, row *types.Row) error {
	b := binary.BigEndian.AppendUint64(nil, uint64(row.Time))
	b, err := op.rawCodec.Encode(b, row.Values[op.nkeys:])
	if err != nil {
		return err
	}
	op.seq++
	return op.raw.Put(rawKey(key, row.Time, op.seq), b)
}

// records returns the group's stored rows with from <= ts <= to.
func (op *slidingOp) records(key []byte, from, to int64) ([]rawRecord, error) {
	var out []rawRecord
	var derr error
	err := op.raw.Range(rawKey(key, from, 0), rawKey(key, to+1, 0), func(k, v []byte) bool {
		if !ownRawKey(k, key) {
			return true // another group's key that key is a prefix of
		}
		if len(v) < 8 {
			derr = &state.CorruptError{What: fmt.Sprintf("%s entry %q", slidingRawStore, k)}
			return false
		}
		r := rawRecord{ts: int64(binary.BigEndian.Uint64(v[:8])), args: make([]any, op.nargs)}
		derr = op.rawCodec.Decode(v[8:], r.args)
		out = append(out, r)
		return derr == nil
	})
	if err == nil {
		err = derr
	}
	return out, err
}

// affectedWindows lists, in order, the windows a record at t creates or
// updates, given the group's records around it (t included).
func affectedWindows(recs []rawRecord, t, d int64) []types.Window {
	set := map[types.Window]bool{}
	for _, r := range recs {
		switch {
		case r.ts >= t && r.ts <= t+d:
			start := max(r.ts-d, 0)                                // windows are D long and never start before 0
			set[types.Window{Start: start, End: start + d}] = true // left windows holding t
		case r.ts < t && t <= r.ts+1+d:
			set[types.Window{Start: r.ts + 1, End: r.ts + 1 + d}] = true // right windows holding t
		}
	}
	for _, r := range recs {
		if r.ts > t && r.ts <= t+1+d {
			set[types.Window{Start: t + 1, End: t + 1 + d}] = true // t's own right window, non-empty
			break
		}
	}
	out := make([]types.Window, 0, len(set))
	for w := range set {
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Start < out[j].Start || (out[i].Start == out[j].Start && out[i].End < out[j].End)
	})
	return out
}

// emitSliding aggregates the records of window w and forwards (or
// buffers) the result.
func (op *slidingOp) emitSliding(row *types.Row, w types.Window, recs []rawRecord) error {
	ts := op.freshAccumulators()
	for _, r := range recs {
		if r.ts < w.Start || r.ts > w.End {
			continue
		}
		at := 0
		for i, c := range op.n.Calls {
			acc, err := c.Agg.Add(op.accs[i], r.args[at:at+len(c.Args)])
			if err != nil {
				op.env.log(ExpressionError, "value", err.Error(), nil)
				return nil
			}
			op.accs[i] = acc
			at += len(c.Args)
		}
		ts = max(ts, r.ts)
	}
	// The window's previous result is not kept: a failing one is deleted.
	return op.result(row, ts, w, oldResult{}, nil)
}

// purgeRaw drops the group's records no open window can hold any more.
func (op *slidingOp) purgeRaw(key []byte) error {
	before := op.streamTime - op.w.Grace - 2*op.w.Size - 1
	if before <= 0 {
		return nil
	}
	var old [][]byte
	err := op.raw.Range(rawKey(key, -1<<62, 0), rawKey(key, before, 0), func(k, _ []byte) bool {
		if !ownRawKey(k, key) {
			return true
		}
		old = append(old, append([]byte(nil), k...))
		return true
	})
	for _, k := range old {
		if err == nil {
			err = op.raw.Put(k, nil)
		}
	}
	return err
}
