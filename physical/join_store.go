package physical

import (
	"bytes"
	"encoding/binary"
	"hash/fnv"

	"github.com/sqlstream/sqlstream/state"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// joinStoreName is the store keeping a table side of a join, named as
// ksqlDB names it (KafkaTopic_Left-Reduce / KafkaTopic_Right-Reduce); its
// changelog is `<app id>-<store>-changelog`.
// A nested step of an n-way join prefixes it (L_KafkaTopic_Right-Reduce).
func joinStoreName(n *planner.Join, side planner.JoinSide) string {
	if joinInput(n, side).Reformat {
		return n.Prefix + reformatStoreName(side)
	}
	if side == planner.JoinLeft {
		return n.Prefix + "KafkaTopic_Left-Reduce"
	}
	return n.Prefix + "KafkaTopic_Right-Reduce"
}

// sideStore keeps the latest row per key of one table side of a join:
// key → 8-byte big-endian timestamp ‖ the row's non-key columns (in the
// table's value format for stream–table, table–table and foreign-key
// joins, see internalFormats.storeValueSpec; JSON for the others).
type sideStore struct {
	store  Store
	schema *types.Schema
	key    format.Codec
	value  format.Codec
	hasher format.Codec // JSON of the non-key columns, what hash digests
	keys   []int
	vals   []int
	rows   *rowCache // decoded rows by store key; nil unless this store sees every write (rowCache)
	// A lookup's key values and store key, reused: the store copies the
	// keys it keeps, decode copies the values.
	lookupKV  []any
	lookupBuf []byte
}

// sideRow is a stored table row (all columns of its side) and its time,
// also boxed (what the join's ALIAS_ROWTIME column holds: boxed once per
// decoded row, not once per stream row joining it).
type sideRow struct {
	values []any
	time   int64
	boxed  any
}

// timed is the row as a join side (see timed), w the joined row's window.
func (r *sideRow) timed(w *types.Window) timed {
	return timed{vals: r.values, ts: r.time, boxed: r.boxed, w: w}
}

// jsonValues is the format of a row's non-key columns that the
// foreign-key join's staleness hash digests, whatever the store's format.
var jsonValues = format.Spec{Name: format.JSON}

func openSideStore(env *TaskEnv, name string, schema *types.Schema, keys, values format.Spec) (*sideStore, error) {
	s, err := env.store(name)
	if err != nil {
		return nil, err
	}
	return newSideStore(s, schema, keys, values)
}

// newSideStore makes a side store over s (nil: only its codecs, to
// decode entries another task sent) whose keys are written in keys's
// format (its changelog's key) and values in values's.
func newSideStore(s Store, schema *types.Schema, keys, values format.Spec) (*sideStore, error) {
	var err error
	st := &sideStore{store: s, schema: schema}
	var vals []types.Column
	for i, c := range schema.Columns {
		if c.NS == types.KeyNS {
			st.keys = append(st.keys, i)
			continue
		}
		st.vals = append(st.vals, i)
		vals = append(vals, types.Column{Name: c.Name, Type: c.Type, NS: types.ValueNS})
	}
	if st.key, err = format.NewKeyCodec(keys, schema.Keys()); err != nil {
		return nil, err
	}
	if st.value, err = format.NewValueCodec(values, vals); err != nil {
		return nil, err
	}
	st.hasher = st.value
	if values.Name != format.JSON {
		st.hasher, err = format.NewValueCodec(jsonValues, vals)
	}
	return st, err
}

func (s *sideStore) encodeKey(row []any) ([]byte, error) {
	k := make([]any, len(s.keys))
	for i, idx := range s.keys {
		k[i] = row[idx]
	}
	return s.key.Encode(nil, k)
}

// lookup returns the stored row whose key columns cols (schema indexes)
// hold the join key's values (nil: none).
// A join of windowed sources looks up the row of the key and window w.
func (s *sideStore) lookup(key []any, cols []int, w *types.Window) (*sideRow, error) {
	if s.rows != nil && !s.rows.warmed {
		s.warm(w != nil)
	}
	kv := s.lookupValues(key, cols)
	k, err := s.key.Encode(s.lookupBuf[:0], kv)
	if err != nil {
		return nil, err
	}
	if w != nil {
		k = format.AppendWindow(k, *w, true)
	}
	s.lookupBuf = k[:0]
	return s.get(k, kv)
}

// lookupValues is the key values (in the order of s.keys) of the row
// whose key columns cols hold key, in a slice reused by the next lookup.
func (s *sideStore) lookupValues(key []any, cols []int) []any {
	if cap(s.lookupKV) < len(s.keys) {
		s.lookupKV = make([]any, len(s.keys))
	}
	kv := s.lookupKV[:len(s.keys)]
	clear(kv)
	for i, idx := range cols {
		for j, k := range s.keys {
			if k == idx {
				kv[j] = key[i]
			}
		}
	}
	return kv
}

// lookupKey encodes the store key of the row whose key columns cols hold
// the join key's values, and returns it with the row's key values.
func (s *sideStore) lookupKey(key []any, cols []int, w *types.Window) ([]byte, []any, error) {
	row := make([]any, len(s.schema.Columns))
	for i, idx := range cols {
		row[idx] = key[i]
	}
	kv := s.keyValues(row)
	k, err := joinStoreKey(s.key, kv, w)
	return k, kv, err
}

// get returns the stored row with the key of row (nil: none).

func (s *sideStore) get(key []byte, keyVals []any) (*sideRow, error) {
	if r, ok := s.rows.get(key); ok {
		return r, nil
	}
	b, err := s.store.Get(key)
	if err != nil || b == nil {
		s.rows.put(key, nil, nil, err)
		return nil, err
	}
	r, err := s.decode(b, keyVals)
	s.rows.put(key, b, r, err)
	return r, err
}

// decode reads a stored entry (ts ‖ non-key columns) of the row with key
// values keyVals.
func (s *sideStore) decode(b []byte, keyVals []any) (*sideRow, error) {
	if len(b) < 8 {
		return nil, &state.CorruptError{What: "join store entry"}
	}
	return s.decodeValues(b[8:], keyVals, int64(binary.BigEndian.Uint64(b)))
}

// decodeValues reads the non-key columns vals of the row with key
// values keyVals and time ts.
func (s *sideStore) decodeValues(b []byte, keyVals []any, ts int64) (*sideRow, error) {
	out := &sideRow{values: make([]any, len(s.schema.Columns)), time: ts, boxed: ts}
	vals := make([]any, len(s.vals))
	if err := s.value.Decode(b, vals); err != nil {
		return nil, err
	}
	for i, idx := range s.keys {
		out.values[idx] = keyVals[i]
	}
	for i, idx := range s.vals {
		out.values[idx] = vals[i]
	}
	return out, nil
}

// warm fills the row cache from one scan of the store, up to the cache's
// bound; it is complete when every entry fitted (rowCache). Entries a
// lookup could not reproduce byte for byte (a key that does not encode
// back to its bytes) or not decode are left to the lookups, which report
// what is wrong with them. A windowed table's keys end in their window:
// its cache is filled by lookups only.
func (s *sideStore) warm(windowed bool) {
	c := s.rows
	c.warmed = true
	if windowed {
		return
	}
	complete := true
	kv := make([]any, len(s.keys))
	var buf []byte
	err := s.store.Range(nil, nil, func(k, v []byte) bool {
		cost := rowCost(k, v)
		if !c.fits(cost) {
			complete = false
			return false
		}
		// the callback's bytes are the store's: the row's strings may
		// share them, so they get their own copy (as a Get's are)
		own := append(append(make([]byte, 0, len(k)+len(v)), k...), v...)
		key, val := own[:len(k):len(k)], own[len(k):]
		clear(kv)
		r, ok := s.warmRow(key, val, kv, &buf)
		if !ok {
			complete = false
			return true
		}
		c.set(key, cachedRow{row: r, cost: cost})
		return true
	})
	c.complete = complete && err == nil
}

// warmRow decodes a scanned entry, if its key encodes back to its bytes
// (so a lookup's key values and these are the same).
func (s *sideStore) warmRow(key, val []byte, kv []any, buf *[]byte) (*sideRow, bool) {
	if err := s.key.Decode(key, kv); err != nil {
		return nil, false
	}
	b, err := s.key.Encode((*buf)[:0], kv)
	*buf = b
	if err != nil || !bytes.Equal(b, key) {
		return nil, false
	}
	r, err := s.decode(val, kv)
	return r, err == nil
}

// update applies a table change (a tombstone deletes) and returns the
// previous row (nil: none).
func (s *sideStore) update(row *types.Row) (old *sideRow, key []byte, err error) {
	if key, err = joinStoreKey(s.key, s.keyValues(row.Values), row.Window); err != nil {
		return nil, nil, err
	}

	if old, err = s.get(key, s.keyValues(row.Values)); err != nil {
		return nil, nil, err
	}
	s.rows.forget(key)
	if row.Tombstone {
		return old, key, s.store.Put(key, nil)
	}
	v, err := s.appendValues(binary.BigEndian.AppendUint64(make([]byte, 0, 64), uint64(row.Time)), row.Values)
	if err != nil {
		return nil, nil, err
	}
	return old, key, s.store.Put(key, v)
}

// appendValues appends the non-key columns of row, encoded as stored.
func (s *sideStore) appendValues(b []byte, row []any) ([]byte, error) {
	vals := make([]any, len(s.vals))
	for i, idx := range s.vals {
		vals[i] = row[idx]
	}
	return s.value.Encode(b, vals)
}

// hash digests a row's non-key columns as JSON (FNV-128a), whatever the
// store's format (a registry format's bytes carry a schema id an upgrade
// may change): what a foreign-key join's subscription carries to
// recognise stale responses.
func (s *sideStore) hash(row []any) ([]byte, error) {
	vals := make([]any, len(s.vals))
	for i, idx := range s.vals {
		vals[i] = row[idx]
	}
	b, err := s.hasher.Encode(nil, vals)
	if err != nil {
		return nil, err
	}
	h := fnv.New128a()
	h.Write(b)
	return h.Sum(nil), nil
}

// keysOnly is a row of the side with only its key columns set (a
// delete's), with the slot of its row time (see withTime) left null.
func (s *sideStore) keysOnly(keyVals []any) []any {
	row := make([]any, len(s.schema.Columns)+1)
	for i, idx := range s.keys {
		row[idx] = keyVals[i]
	}
	return row
}

func (s *sideStore) keyValues(row []any) []any {
	k := make([]any, len(s.keys))
	for i, idx := range s.keys {
		k[i] = row[idx]
	}
	return k
}
