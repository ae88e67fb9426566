package pull

import (
	"slices"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/format"
)

// LookupPartitions returns the store partitions holding the keys of a
// key lookup (plan) on the table that the query table (its plan and
// topology) writes: each key serialized as the records of the store's
// task are keyed (through the repartition topic's own key codec, in the
// source's key format with the topic's schema id, or its JSON key, which
// is the store key, for a query recorded before internal topics took the
// sources' formats; when the task reads the source topic itself, the
// source's key format), then murmur2 as the producer partitioned them.
// Anything it cannot compute (a registry that does not answer) gives
// every partition.
func LookupPartitions(plan, table *planner.Plan, topo *physical.Topology, m *physical.Materialization, storeKeys [][]byte, parts int32) []int32 {
	encode, ok := partitionKeyEncoder(table, topo, m)
	if !ok {
		return AllPartitions(parts)
	}
	keyCol := plan.Sources[0].Schema.Keys()[0]
	f, _ := plan.Filter()
	_, lits := keyLiterals(f.Cond)
	var out []int32
	for _, lit := range lits {
		if lit.Value == nil {
			continue
		}
		v, err := expr.Coerce(lit.Value, lit.Type, keyCol.Type)
		if err != nil {
			return AllPartitions(parts)
		}
		k, err := encode([]any{v})
		if err != nil {
			return AllPartitions(parts)
		}
		out = append(out, exec.DefaultPartition(k, parts))
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
func partitionKeyEncoder(table *planner.Plan, topo *physical.Topology, m *physical.Materialization) (func([]any) ([]byte, error), bool) {
	if table.Join != nil {
		return nil, false
	}
	st := topo.SubTopologies[m.Sub]
	internal := map[string]bool{}
	for _, it := range topo.Internal {
		internal[it.Name] = true
	}
	if slices.ContainsFunc(st.Topics, func(t string) bool { return internal[t] }) {
		if topo.RepartitionKeysAreStoreKeys() {
			return m.Key, true
		}
		// A repartition topic in the source's key format (which may carry
		// a registry's schema id) is keyed by its own codec, not as the
		// store.
		c, ok, _ := topo.PartitionKeyCodec(m.Sub)
		if !ok {
			return nil, false
		}
		return func(vals []any) ([]byte, error) { return c.Encode(nil, vals) }, true
	}
	if len(table.Sources) != 1 || len(st.Topics) != 1 || st.Topics[0] != table.Sources[0].Topic {
		return nil, false
	}
	src := table.Sources[0]
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

// AllPartitions lists partitions 0 … parts-1.
func AllPartitions(parts int32) []int32 {
	out := make([]int32, parts)
	for p := range out {
		out[p] = int32(p)
	}
	return out
}
