package runtime

import (
	"slices"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/format"
)

// lookupPartitions returns the store partitions holding the keys of a
// key lookup: each key serialized as the records of the store's task
// are keyed (through the repartition topic's own key codec, in the
// source's key format with the topic's schema id, or its JSON key, which
// is the store key, for a query recorded before internal topics took the
// sources' formats; when the task reads the source topic itself, the
// source's key format), then murmur2 as the producer partitioned them.
// Anything it cannot compute (a registry that does not answer) gives
// every partition.
func lookupPartitions(t *transient, q *query, m *physical.Materialization, storeKeys [][]byte, parts int32) []int32 {
	encode, ok := partitionKeyEncoder(q, m)
	if !ok {
		return allPartitions(parts)
	}
	keyCol := t.plan.Sources[0].Schema.Keys()[0]
	f, _ := t.plan.Filter()
	_, lits := keyLiterals(f.Cond)
	var out []int32
	for _, lit := range lits {
		if lit.Value == nil {
			continue
		}
		v, err := expr.Coerce(lit.Value, lit.Type, keyCol.Type)
		if err != nil {
			return allPartitions(parts)
		}
		k, err := encode([]any{v})
		if err != nil {
			return allPartitions(parts)
		}
		out = append(out, DefaultPartition(k, parts))
	}
	if len(storeKeys) == 0 {
		return nil
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// partitionKeyEncoder returns how the records of the store's task are
// keyed: with the repartition topic's key codec when the task reads one
// (the store key for legacy JSON internal topics), with the source's key
// codec when it reads the one source topic of a single-key source; ok is
// false otherwise. A join's task is partitioned as its
// inputs are (a source topic's key format, a repartition topic in the
// other side's format, an FK response sent to the left row's partition),
// which is not the store key: its lookups ask every partition.
func partitionKeyEncoder(q *query, m *physical.Materialization) (func([]any) ([]byte, error), bool) {
	if q.plan.Join != nil {
		return nil, false
	}
	st := q.topo.SubTopologies[m.Sub]
	internal := map[string]bool{}
	for _, it := range q.topo.Internal {
		internal[it.Name] = true
	}
	if slices.ContainsFunc(st.Topics, func(t string) bool { return internal[t] }) {
		if q.topo.RepartitionKeysAreStoreKeys() {
			return m.Key, true
		}
		// A repartition topic in the source's key format (which may carry
		// a registry's schema id) is keyed by its own codec, not as the
		// store.
		c, ok, _ := q.topo.PartitionKeyCodec(m.Sub)
		if !ok {
			return nil, false
		}
		return func(vals []any) ([]byte, error) { return c.Encode(nil, vals) }, true
	}
	if len(q.plan.Sources) != 1 || len(st.Topics) != 1 || st.Topics[0] != q.plan.Sources[0].Topic {
		return nil, false
	}
	src := q.plan.Sources[0]
	keys := src.Schema.Keys()
	if len(keys) != 1 {
		return nil, false
	}
	c, err := format.NewKeyCodec(src.KeyFormat, keys)
	if err != nil {
		return nil, false
	}
	return func(vals []any) ([]byte, error) { return c.Encode(nil, vals) }, true
}

func allPartitions(parts int32) []int32 {
	out := make([]int32, parts)
	for p := range out {
		out[p] = int32(p)
	}
	return out
}
