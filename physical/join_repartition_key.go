package physical

import (
	"slices"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// repartitionKey is the record key of a join's repartition topic: the
// join key (one value per key column, in ON's order) written exactly as
// the side that keeps its key writes its own, so that murmur2 puts a
// re-keyed row in the partition of its match. A composite key is written
// in the kept side's key column order under its column names; with no
// kept side (both re-keyed) as JSON columns K, K2, ….
type repartitionKey struct {
	codec format.Codec
	perm  []int // perm[p] is the join key index written at position p
}

// newRepartitionKey makes the key codec of join n's repartition topic
// topic.
func newRepartitionKey(n *planner.Join, f internalFormats, topic string) (*repartitionKey, error) {
	kept := keptSide(n)
	kf := keptKeyFormat(n)
	cols := joinKeyColumns(n.KeyTypes())
	perm := make([]int, len(cols))
	for i := range perm {
		perm[i] = i
	}
	if len(cols) > 1 {
		if kf.Name == format.Kafka {
			kf = format.Spec{Name: format.JSON} // KAFKA keys hold one column
		}
		if !kept.Rekeyed() {
			cols, perm = keptKeyColumns(kept)
		}
	}
	codec, err := format.NewKeyCodec(f.joinKeySpec(kf, topic, cols), cols)
	return &repartitionKey{codec: codec, perm: perm}, err
}

// keptSide is the join side that keeps its key: the right unless it is
// re-keyed.
func keptSide(n *planner.Join) *planner.JoinInput {
	if !n.Right.Rekeyed() {
		return &n.Right
	}
	return &n.Left
}

// keptKeyFormat is the key format of the join key: the kept side's, KAFKA
// when both sides are keyless (ksqlDB's default key format).
func keptKeyFormat(n *planner.Join) format.Spec {
	kf := keptSide(n).Source.KeyFormat
	if kf.Name == format.None {
		kf = format.Spec{Name: format.Kafka}
	}
	return kf
}

// keptKeyColumns are the kept side's key columns in its schema order,
// and for each the index of the join key column it holds.
func keptKeyColumns(in *planner.JoinInput) ([]types.Column, []int) {
	var cols []types.Column
	var perm []int
	for i, c := range in.Source.Schema.Columns {
		if c.NS == types.KeyNS {
			cols = append(cols, c)
			perm = append(perm, slices.Index(in.Keys, i))
		}
	}
	return cols, perm
}

func (k *repartitionKey) width() int { return len(k.perm) }

// encode appends the join key key to dst. vals is the room for the key
// in its written order (len(perm)); the caller's to reuse.
func (k *repartitionKey) encode(dst []byte, vals, key []any) ([]byte, error) {
	for p, i := range k.perm {
		vals[p] = key[i]
	}
	return k.codec.Encode(dst, vals)
}

// decode reads a record key into the join key key.
func (k *repartitionKey) decode(b []byte, key []any) error {
	vals := make([]any, len(k.perm))
	if err := k.codec.Decode(b, vals); err != nil {
		return err
	}
	for p, i := range k.perm {
		key[i] = vals[p]
	}
	return nil
}
