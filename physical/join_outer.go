package physical

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/types"
)

// outerStore is the shared "non-joined" store of an outer stream–stream
// join with a GRACE PERIOD (Kafka Streams' spurious-result fix, KIP-633):
// an unmatched row of a preserved side waits here, keyed
// ts ‖ side ‖ len(key) ‖ key ‖ seq, until stream time closes its window;
// a later match deletes it. Rows are emitted in (ts, side, key) order.
// The task's stream time is kept under streamTimeKey, after every entry
// (see joinClock).
//
// The sweep has no wall-clock throttle (Kafka Streams sweeps at most once
// per second, `__emit.interval.ms.kstreams.outer.join.spurious.results.fix__`):
// what is emitted, and when, depends on the records only, not on how fast
// or with which restarts they were processed. It is cheap when nothing
// can be due: minTime (Kafka Streams' too) bounds the oldest pending row.
type outerStore struct {
	store Store
	codec [2]*streamWindow // the sides' value codecs
	cols  [2]int
	seq   uint32
	grace int64
	// lookBack per side: how long after its time a row may still match
	// (the left side's `after`, the right side's `before`).
	lookBack [2]int64
	// minTime is at most the time of the oldest pending row (MaxInt64:
	// none) once minKnown; unknown after opening, until the first sweep.
	minTime  int64
	minKnown bool
}

func sideIndex(s planner.JoinSide) int {
	if s == planner.JoinLeft {
		return 0
	}
	return 1
}

// prefix is the key of the entries of (ts, side, key).
func outerPrefix(ts int64, side int, key []byte) []byte {
	b := binary.BigEndian.AppendUint64(make([]byte, 0, 17+len(key)), uint64(ts))
	b = append(b, byte(side))
	b = binary.BigEndian.AppendUint32(b, uint32(len(key)))
	return append(b, key...)
}

func (o *outerStore) put(ts int64, side int, key []byte, vals []any) error {
	v, err := o.codec[side].value.Encode(nil, vals)
	if err != nil {
		return err
	}
	o.seq++
	o.minTime = min(o.minTime, ts)
	return o.store.Put(binary.BigEndian.AppendUint32(outerPrefix(ts, side, key), o.seq), v)
}

// drop deletes the pending entries of (ts, side, key): the row matched.
func (o *outerStore) drop(ts int64, side int, key []byte) error {
	p := outerPrefix(ts, side, key)
	var keys [][]byte
	err := o.store.Range(p, keySuccessor(p), func(k, _ []byte) bool {
		keys = append(keys, bytes.Clone(k))
		return true
	})
	for _, k := range keys {
		if err == nil {
			err = o.store.Put(k, nil)
		}
	}
	return err
}

// outerEntry is a pending row the sweep emits.
type outerEntry struct {
	storeKey []byte
	ts       int64
	side     int
	key      []byte
	values   []any
}

// expired returns, in store order, the entries whose window plus grace
// closed before streamTime.
func (o *outerStore) expired(streamTime int64) ([]outerEntry, error) {
	if o.minKnown && o.minTime >= streamTime-min(o.lookBack[0], o.lookBack[1])-o.grace {
		return nil, nil
	}
	var out []outerEntry
	var derr error
	remaining := int64(math.MaxInt64)
	err := o.store.Range(nil, nil, func(k, v []byte) bool {
		if string(k) == streamTimeKey {
			return false
		}
		ts := int64(binary.BigEndian.Uint64(k))
		if ts >= streamTime {
			remaining = min(remaining, ts)
			return false
		}
		side := int(k[8])
		if ts+o.lookBack[side]+o.grace >= streamTime {
			remaining = min(remaining, ts)
			return true
		}
		n := binary.BigEndian.Uint32(k[9:])
		vals := make([]any, o.cols[side])
		if derr = o.codec[side].value.Decode(v, vals); derr != nil {
			return false
		}
		out = append(out, outerEntry{storeKey: bytes.Clone(k), ts: ts, side: side, key: bytes.Clone(k[13 : 13+n]), values: vals})
		return true
	})
	if err == nil {
		err = derr
	}
	if err == nil {
		o.minTime, o.minKnown = remaining, true
	}
	return out, err
}

// keySuccessor is the smallest key greater than every key with prefix p.
func keySuccessor(p []byte) []byte {
	out := bytes.Clone(p)
	for i := len(out) - 1; i >= 0; i-- {
		if out[i] < 0xff {
			out[i]++
			return out[:i+1]
		}
	}
	return nil
}

// sweep emits (row, null) for every pending row whose window closed,
// with the row's own time, and forgets it.
func (op *streamStreamJoin) sweep(in *types.Row) error {
	entries, err := op.shared.expired(op.clock.time)
	if err != nil {
		return err
	}
	for _, e := range entries {
		keyVal := make([]any, op.n.KeyWidth())
		w, err := splitJoinStoreKey(op.this.key, e.key, keyVal, op.n.Left.Source.Windowed())
		if err != nil {
			return err
		}
		vals, w, err := op.ownWindow(e.values, w)
		if err != nil {
			return err
		}
		if err := op.emitSide(e.side, keyVal, vals, e.ts, w, in); err != nil {
			return err
		}
		if err := op.shared.store.Put(e.storeKey, nil); err != nil {
			return err
		}
	}
	return nil
}

// emitSide emits a pending row of side (0 left, 1 right) with nulls.
func (op *streamStreamJoin) emitSide(side int, key []any, vals []any, ts int64, w *types.Window, in *types.Row) error {
	l, r := withTime(vals, ts, w), []any(nil)
	if side == 1 {
		l, r = nil, l
	}
	out := &types.Row{Values: op.join(key, l, r), Time: ts, Partition: in.Partition, Offset: in.Offset, Window: w}

	return op.next.Process(out)
}
