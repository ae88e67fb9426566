package physical

import (
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// tableStore is the store a table-producing query without aggregation
// keeps its output in, so pull queries can read the table.
const tableStoreName = "Materialize"

// materializeOp keeps the latest row per key of a table the query writes
// (serialized with the table's own formats; a delete removes the key)
// before passing the row on to the sink.
type materializeOp struct {
	env   *TaskEnv
	store Store
	key   format.Codec
	value format.Codec
	nkeys int
	vals  []int
	next  Processor
}

func newMaterializeOp(env *TaskEnv, target *planner.Source, keys, values format.Spec, next Processor) (*materializeOp, error) {
	s, err := env.store(tableStoreName)
	if err != nil {
		return nil, err
	}
	op := &materializeOp{env: env, store: s, nkeys: target.Schema.NumKeys(), next: next}
	var cols []types.Column
	for i, c := range target.Schema.Columns {
		if c.NS == types.ValueNS {
			cols = append(cols, c)
			op.vals = append(op.vals, i)
		}
	}
	if op.key, err = format.NewKeyCodec(keys, target.Schema.Keys()); err != nil {
		return nil, err
	}
	op.value, err = format.NewValueCodec(values, cols)
	return op, err
}

func (op *materializeOp) Process(row *types.Row) error {
	k, err := op.key.Encode(nil, row.Values[:op.nkeys])
	if err != nil {
		return err
	}
	var v []byte
	if !row.Tombstone {
		vals := make([]any, len(op.vals))
		for i, idx := range op.vals {
			vals[i] = row.Values[idx]
		}
		if v, err = op.value.Encode(make([]byte, 0, 64), vals); err != nil {
			return err
		}
		if v == nil {
			v = []byte{}
		}
	}
	if err := op.store.Put(k, v); err != nil {
		return err
	}
	if op.next == nil {
		return nil
	}
	return op.next.Process(row)
}

// materializesTable reports whether a plan writes a table without
// aggregating (its output must be stored to be queryable).
func materializesTable(plan *planner.Plan, chain []planner.Node) bool {
	if plan.Sink == nil || plan.Sink.Kind != ast.Table || plan.Aggregated {
		return false
	}
	if s, ok := plan.Root.(*planner.Sink); ok && s.MaterializeOnly {
		return true
	}
	return len(chain) > 0 && isSink(chain[len(chain)-1])
}

// tableMaterialization reads a table a non-aggregating query stores.
func tableMaterialization(t *Topology, target *planner.Source) (*Materialization, error) {
	m := &Materialization{Sub: t.storeSub(tableStoreName), Store: tableStoreName, table: target}
	var err error
	keys, values := t.formats.tableStoreFormats(target, t.storeChangelog(tableStoreName))
	if m.key, err = format.NewKeyCodec(keys, target.Schema.Keys()); err != nil {
		return nil, err
	}
	m.state, err = format.NewValueCodec(values, valueColumns(target.Schema))
	return m, err
}

// valueColumns are s's value columns.
func valueColumns(s *types.Schema) []types.Column {
	var cols []types.Column
	for _, c := range s.Columns {
		if c.NS == types.ValueNS {
			cols = append(cols, c)
		}
	}
	return cols
}

// tableRow decodes a stored table row.
func (m *Materialization) tableRow(key, value []byte) (*types.Row, bool, error) {
	s := m.table.Schema
	row := &types.Row{Values: make([]any, len(s.Columns))}
	n := s.NumKeys()
	if err := m.key.Decode(key, row.Values[:n]); err != nil {
		return nil, false, err
	}
	vals := make([]any, len(s.Columns)-n)
	if err := m.state.Decode(value, vals); err != nil {
		return nil, false, err
	}
	j := 0
	for i, c := range s.Columns {
		if c.NS == types.ValueNS {
			row.Values[i] = vals[j]
			j++
		}
	}
	return row, true, nil
}
