package runtime

import (
	"slices"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/cluster"
	"github.com/sqlstream/sqlstream/runtime/peer"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/format"
)

// lookupPartitions returns the store partitions holding the keys of a
// key lookup: each key serialized as the records of the store's task
// are keyed (the repartition topic's JSON key of a query recorded before
// internal topics took the sources' formats, which is the store key, or,
// when the task reads the source topic itself, the source's key format),
// then murmur2 as the producer partitioned them. Anything it
// cannot compute gives every partition.
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
// keyed: as the store key when the task reads an internal topic, with the
// source's key codec when it reads the one source topic of a single-key
// source; ok is false otherwise. A join's task is partitioned as its
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
		// A repartition topic in the source's key format (which may carry
		// a registry's schema id) is not keyed as the store: ask every
		// partition rather than the wrong one.
		return m.Key, q.topo.RepartitionKeysAreStoreKeys()
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

// pullOf is what the route of t's pull query over store partitions
// parts depends on: the store's sub-topology, what a forwarded query was
// sent for, and the client's standby-read settings.
func (e *Engine) pullOf(t *transient, m *physical.Materialization, parts []int32) cluster.Pull {
	read := props.NewParser(e.table, t.props)
	return cluster.Pull{Sub: m.Sub, Parts: parts, Only: t.only,
		StandbyReads: read.Bool(props.StandbyReads), MaxLag: read.Int(props.MaxOffsetLag)}
}

// forwardOf is the forward of t's pull query to another server (its
// partitions set per host): the same SQL, the properties the client set
// and its credentials.
func (e *Engine) forwardOf(t *transient) peer.ForwardRequest {
	return peer.ForwardRequest{SQL: t.sql, Props: overrides(t.props, e.props), Authorization: t.auth, Done: t.closed}
}

// overrides returns the properties of set that differ from the server's
// base: what the client set for this query.
func overrides(set, base props.Properties) map[string]string {
	out := map[string]string{}
	for k, v := range set {
		if base[k] != v {
			out[k] = v
		}
	}
	return out
}
