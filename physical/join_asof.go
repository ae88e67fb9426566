package physical

import (
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
	"github.com/sqlstream/sqlstream/state"
)

// versionedStoreName is the store keeping an as-of join's table history
// (key ‖ valid-from, state.VersionedStore); its changelog is
// `<app id>-<store>-changelog`, compacted.
func versionedStoreName(n *planner.Join) string {
	return n.Prefix + "KafkaTopic_Right-Versioned"
}

// bufferStoreName is the grace buffer of an as-of join's stream rows,
// named as Kafka Streams names a stream–table join's (`<join>-Buffer`).
func bufferStoreName(n *planner.Join) string { return n.Prefix + "Join-Buffer" }

// versionedSide is the table side of an as-of join: every version of each
// row (a tombstone is a version too), with the side store's codecs.
type versionedSide struct {
	store *state.VersionedStore
	codec *sideStore // codecs only
}

func openVersionedSide(env *TaskEnv, n *planner.Join, f asOfFormats) (*versionedSide, error) {
	s, err := env.store(versionedStoreName(n))
	if err != nil {
		return nil, err
	}
	v, err := state.NewVersionedStore(s, n.AsOf.Retention)
	if err != nil {
		return nil, err
	}
	codec, err := newSideStore(nil, n.Right.Source.Schema, f.keys, f.values)
	if err != nil {
		return nil, err
	}
	return &versionedSide{store: v, codec: codec}, nil
}

// Process records a table change as a version valid from its time; an
// update older than the history kept is dropped by the store.
func (v *versionedSide) Process(row *types.Row) error {
	if row.Time < 0 {
		return nil
	}
	key, err := v.codec.encodeKey(row.Values)
	if err != nil {
		return err
	}
	var val []byte
	if !row.Tombstone {
		if val, err = v.codec.appendValues(nil, row.Values); err != nil {
			return err
		}
	}
	_, err = v.store.Put(key, row.Time, val)
	return err
}

// asOfLookup is what a stream–table join needs to join as of a time: the
// versioned table, where the stream row's time is, and the grace buffer
// (nil without GRACE PERIOD).
type asOfLookup struct {
	table     *versionedSide
	timeIndex int // stream column of the lookup time; -1: ROWTIME
	buffer    *asOfBuffer
}

// get returns the table version valid at the stream row's time (nil:
// none, or the row has no time); key is the join key, cols the table's
// key columns, vals the stream side's columns.
func (a *asOfLookup) get(key []any, cols []int, vals []any, row *types.Row) (*sideRow, error) {
	ts, ok := a.time(vals, row)
	if !ok {
		return nil, nil
	}
	k, kv, err := a.table.codec.lookupKey(key, cols, nil)
	if err != nil {
		return nil, err
	}
	ver, err := a.table.store.GetAsOf(k, ts)
	if err != nil || ver == nil {
		return nil, err
	}
	return a.table.codec.decodeValues(ver.Value, kv, ver.ValidFrom)
}

// time is the stream row's lookup time: its ROWTIME or the AS OF column
// of the stream side's columns vals.
func (a *asOfLookup) time(vals []any, row *types.Row) (int64, bool) {
	if a.timeIndex < 0 {
		return row.Time, true
	}
	switch v := vals[a.timeIndex].(type) {
	case types.Timestamp:
		return int64(v), true
	case int64:
		return v, true
	}
	return 0, false // null: no version
}

// newAsOfJoin makes the operators of an as-of join: the stream side (with
// its grace buffer) and the table side keeping versions.
func newAsOfJoin(env *TaskEnv, n *planner.Join, f asOfFormats, next Processor) (lp, rp Processor, err error) {
	table, err := openVersionedSide(env, n, f)
	if err != nil {
		return nil, nil, err
	}
	a := &asOfLookup{table: table, timeIndex: n.AsOf.TimeIndex}
	if n.AsOf.Grace >= 0 {
		if a.buffer, err = openAsOfBuffer(env, n, f.buffer); err != nil {
			return nil, nil, err
		}
	}
	if lp, err = env.counted(&streamTableJoin{joiner: joiner{n: n}, table: table.codec, asOf: a, left: n.Type == ast.LeftJoin,
		env: env, next: next, vals: newRowValues(next)}, n.Prefix+joinNodeName); err != nil {
		return nil, nil, err
	}
	// the table side's node is the stream–table join's materialization
	if rp, err = env.counted(table, n.Prefix+rightMaterializeName); err != nil {
		return nil, nil, err
	}
	return lp, rp, nil
}

// asOfDescs describes an as-of join's nodes: the stream–table ones, the
// table side keeping versions and the join reading them (and its buffer).
func asOfDescs(n *planner.Join, versions, buffer StoreSpec, t joinTopics) []*NodeDesc {
	descs := joinDescs(n, [2]StoreSpec{{}, versions}, t)
	if buffer.Name != "" {
		join := descs[len(descs)-1]
		join.Stores = append(join.Stores, buffer.Name)
	}
	return descs
}

var _ Processor = (*versionedSide)(nil)

// startAsOfJoin makes an as-of join's part of the sub-topology: the
// versioned table store and, with a GRACE PERIOD, the buffer, both
// changelogged (compacted: a key's latest version must outlive the
// history retention).
func (b *builder) startAsOfJoin(n *planner.Join, seg *segment, t joinTopics) {
	versions := b.store(versionedStoreName(n))
	var buffer StoreSpec
	if n.AsOf.Grace >= 0 {
		buffer = b.store(bufferStoreName(n))
	}
	f := b.asOfFormats(n, versions, buffer)
	seg.joinDescs = asOfDescs(n, versions, buffer, t)
	seg.head = func(env *TaskEnv, next Processor) (rawProcessor, error) {
		lp, rp, err := newAsOfJoin(env, n, f, next)
		if err != nil {
			return nil, err
		}
		return b.joinSources(env, n, t, lp, rp)
	}
}

// asOfFormats are the formats of an as-of join's stores: the versioned
// table store's keys (then the version's time, as state.VersionedStore
// lays them out) in the format the table's rows arrive keyed in and its
// values in the table's value format, and the grace buffer's stream rows
// in the stream's value format, each under its changelog's subjects
// (internalFormats.storeKeySpec, asOfValueSpec and rowStoreSpec); JSON
// for queries recorded before (Options.LegacyStoreKeysJSON).
type asOfFormats struct {
	keys, values, buffer format.Spec
}

func (b *builder) asOfFormats(n *planner.Join, versions, buffer StoreSpec) asOfFormats {
	f := b.internal()
	kf := n.Right.Source.KeyFormat
	if n.Right.Reformat {
		kf = reformatKeyFormat(n)
	}
	out := asOfFormats{keys: f.storeKeySpec(kf, versions.Changelog, n.Right.Source.Schema.Keys()),
		values: f.asOfValueSpec(n.Right.Source.ValueFormat, versions.Changelog, valueColumns(n.Right.Source.Schema))}
	if buffer.Name != "" {
		out.buffer = f.rowStoreSpec(n.Left.Source.ValueFormat, buffer.Changelog, asOfBufferColumns(n))
	}
	return out
}

// asOfValueSpec is the value format of an as-of join's versioned store:
// the table's own (as a stream–table join's table store, storeValueSpec)
// under the changelog's subject; JSON for legacy stores.
func (f internalFormats) asOfValueSpec(src format.Spec, changelog string, cols []types.Column) format.Spec {
	if f.legacyStoreKeys {
		return format.Spec{Name: format.JSON}
	}
	return f.valueSpec(src, changelog, cols)
}
