package physical

import (
	"encoding/binary"
	"fmt"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
	"github.com/sqlstream/sqlstream/state"
)

// Materialization turns the entries of a persistent query's aggregate
// store back into rows of the table the query writes: the group key and
// the aggregate results, passed through the query's HAVING filter and
// projection. Pull queries read tables through it.
type Materialization struct {
	// Sub is the sub-topology whose tasks own the store.
	Sub int
	// Store is the store's name.
	Store string
	agg   *planner.Aggregate
	table *planner.Source // a stored table output (no aggregation)
	post  []planner.Node  // filters and projections above the aggregate
	key   format.Codec
	state format.Codec // a stored table's values (table != nil)
	accs  *aggState    // an aggregate store's values (agg != nil)
}

// Materialization returns how to read the table a plan writes, or nil when
// the plan keeps no queryable store.
func (t *Topology) Materialization(plan *planner.Plan) (*Materialization, error) {
	chain, _, err := linearize(plan.Root)
	if err != nil {
		return nil, err
	}
	if materializesTable(plan, chain) {
		return tableMaterialization(t, plan.Sink)
	}
	for i, n := range chain {
		agg, ok := n.(*planner.Aggregate)
		if !ok {
			continue
		}
		m := &Materialization{Sub: t.storeSub(aggregateStore), Store: aggregateStore, agg: agg}
		for _, post := range chain[i+1:] {
			if !isSink(post) {
				m.post = append(m.post, post)
			}
		}
		src, changelog := firstSource(plan), t.storeChangelog(aggregateStore)
		return m, m.codecs(t.formats.storeKeySpec(src.KeyFormat, changelog, agg.Schema().Keys()),
			t.formats.aggStateSpec(src.ValueFormat, changelog, agg))
	}
	return nil, nil
}

// storeSub returns the sub-topology owning the named store.
func (t *Topology) storeSub(name string) int {
	for _, st := range t.SubTopologies {
		for _, s := range st.Stores {
			if s.Name == name {
				return st.ID
			}
		}
	}
	return 0
}

// storeChangelog is the changelog topic of store name ("" if none).
func (t *Topology) storeChangelog(name string) string {
	for _, st := range t.SubTopologies {
		for _, s := range st.Stores {
			if s.Name == name {
				return s.Changelog
			}
		}
	}
	return ""
}

func (m *Materialization) codecs(keys format.Spec, states stateFormat) error {
	var err error
	if m.key, err = format.NewKeyCodec(keys, m.agg.Schema().Keys()); err != nil {
		return err
	}
	m.accs, err = newAggState(m.agg, states)
	return err
}

// Key encodes a table key (the group key values) as the store's key.
func (m *Materialization) Key(vals []any) ([]byte, error) { return m.key.Encode(nil, vals) }

// Row turns one store entry into a table row; ok is false when the group
// is not in the table (filtered out by HAVING).
func (m *Materialization) Row(key, value []byte) (*types.Row, bool, error) {
	if m.table != nil {
		return m.tableRow(key, value)
	}
	nkeys := len(m.agg.Keys)
	row := &types.Row{Values: make([]any, nkeys+len(m.agg.Calls))}
	key, w, err := m.splitWindow(key)
	if err != nil {
		return nil, false, err
	}
	row.Window = w
	if err := m.key.Decode(key, row.Values[:nkeys]); err != nil {
		return nil, false, err
	}
	if len(value) < 8 {
		return nil, false, &state.CorruptError{What: "aggregate state"}
	}
	row.Time = int64(binary.BigEndian.Uint64(value))
	accs := make([]any, len(m.agg.Calls))
	if err := m.accs.Decode(value[8:], accs); err != nil {
		return nil, false, err
	}
	for i, c := range m.agg.Calls {
		v, err := c.Agg.Result(accs[i])
		if err != nil {
			return nil, false, err
		}
		row.Values[nkeys+i] = v
	}
	return m.applyPost(row)
}

// applyPost runs the query's HAVING and projection over an aggregate row.
func (m *Materialization) applyPost(row *types.Row) (*types.Row, bool, error) {
	for _, n := range m.post {
		switch n := n.(type) {
		case *planner.Filter:
			v, err := n.Pred.Eval(row)
			if b, _ := v.(bool); err != nil || !b {
				return nil, false, nil
			}
		case *planner.Project:
			out := &types.Row{Values: make([]any, len(n.Columns)), Time: row.Time, Window: row.Window}
			s := n.Schema()
			for _, c := range n.Columns {
				v, err := c.Eval.Eval(row)
				if err != nil {
					v = nil
				}
				out.Values[s.Find(c.Name)] = v
			}
			row = out
		default:
			return nil, false, fmt.Errorf("cannot materialize through %T", n)
		}
	}
	return row, true, nil
}

// splitWindow separates the window from a windowed store key.
func (m *Materialization) splitWindow(k []byte) ([]byte, *types.Window, error) {
	if m.agg == nil || m.agg.Window == nil {
		return k, nil, nil
	}
	w := m.agg.Window
	if w == nil {
		return k, nil, nil
	}
	if w.Kind == ast.Session {
		key, start, end, err := state.SplitSessionKey(k)
		return key, &types.Window{Start: start, End: end}, err
	}
	key, start, _, err := state.SplitWindowKey(k)
	return key, &types.Window{Start: start, End: start + w.Size}, err
}

// Windowed reports whether the store's keys carry windows.
func (m *Materialization) Windowed() bool { return m.agg != nil && m.agg.Window != nil }
