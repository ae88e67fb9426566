package physical

import (
	"fmt"
	"strings"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// GlobalStoreSpec is the store of a global table a join reads (Kafka
// Streams' GlobalKTable): not a task's store but one per query, which the
// runtime fills from every partition of Topic before the query's tasks
// process anything, keeps current while it runs, and hands to every task
// (TaskEnv.Globals). It has no changelog: the topic is its changelog.
type GlobalStoreSpec struct {
	Name   string // <TABLE>-GlobalStore
	Topic  string
	Source *planner.Source
	parse  func(any) (int64, error)
	// keys and values are the formats of the store's entries
	// (internalFormats.globalFormats).
	keys, values format.Spec
}

// GlobalStores gives a task the query's global stores by name; the
// store is shared by all tasks and safe for concurrent use.
type GlobalStores interface {
	Global(name string) (Store, error)
}

// GlobalWrites is implemented by a global store that tells its readers
// which keys it wrote, so that each task's join may keep the rows it
// decoded (a rowCache) and drop only those written since: the store is
// written by its loader on another goroutine, so a cache of the task's
// own would otherwise be stale (rowCache). A store that does not
// implement it is read and decoded on every lookup.
type GlobalWrites interface {
	// Written is the number of writes applied so far (safe to call
	// concurrently with them, and cheap: once per lookup).
	Written() uint64
	// WrittenSince calls fn with the key of every write after the first
	// since ones, up to now, the count it returns; ok false says the
	// store no longer knows them all (too many, or the store was reset):
	// the reader must forget every row it keeps. fn's key is only valid
	// during the call.
	WrittenSince(since uint64, fn func(key []byte)) (now uint64, ok bool)
}

func (e *TaskEnv) global(name string) (Store, error) {
	if e.Globals == nil {
		return nil, fmt.Errorf("no global store %s available", name)
	}
	return e.Globals.Global(name)
}

// GlobalLoader applies records of a global table's topic to its store:
// each is decoded as the table's source decodes it (bad records go to
// the processing log) and upserts or, for a tombstone, deletes its key.
type GlobalLoader struct {
	src *sourceOp
}

// NewLoader makes a loader writing into store; log receives the records
// that do not deserialize.
func (g GlobalStoreSpec) NewLoader(store Store, log ProcessingLog) (*GlobalLoader, error) {
	side, err := newSideStore(store, g.Source.Schema, g.keys, g.values)
	if err != nil {
		return nil, err
	}
	op, err := newSourceOp(&TaskEnv{Partition: -1, Log: log}, g.Source, &tableSide{table: side}, g.parse)
	if err != nil {
		return nil, err
	}
	return &GlobalLoader{src: op}, nil
}

// Load applies one record of the topic.
func (l *GlobalLoader) Load(r *InRecord) error { return l.src.ProcessRaw(r) }

// globalFormats are the key and value formats of a global table's local
// copy: the table's own where they need no registry (the copy has no
// changelog whose subjects a schema could be registered under, and a
// lookup's key must be the bytes the rows were stored under, so a key
// carrying a schema id is no store key), JSON otherwise and for legacy
// stores (Options.LegacyStoreKeysJSON).
//
// Against Kafka Streams' global store: both are filled from every
// partition of the table's topic by a consumer of no group (the topic is
// the changelog: no internal topic, nothing another application could
// read; ours reads read_committed always, Kafka Streams' under
// exactly-once only), and both keep the next offset of each partition
// locally. Kafka Streams' store keeps the topic's bytes (its restore
// copies records into the store without deserializing them; values get
// an 8-byte timestamp in front), its offsets in a .checkpoint file
// written after the store's flush. Ours decodes each record as the
// table's source does (a bad one goes to the processing log, never into
// the store) and keeps the row re-encoded (key bytes in the formats
// above, value ts ‖ the non-key columns, as the join stores' sideStore),
// its offsets in the same Pebble batch as the rows they cover
// (runtime/global's Store). The copy is local only, so the difference
// shows in no topic.
func (f internalFormats) globalFormats(src *planner.Source) (format.Spec, format.Spec) {
	keys, values := format.Spec{Name: format.JSON}, format.Spec{Name: format.JSON}
	if f.legacyStoreKeys {
		return keys, values
	}
	if k := src.KeyFormat; !k.UsesRegistry() && k.Name != format.None {
		if _, err := format.NewKeyCodec(k, src.Schema.Keys()); err == nil {
			keys = k
		}
	}
	if v := src.ValueFormat; !v.UsesRegistry() {
		if _, err := format.NewValueCodec(v, valueColumns(src.Schema)); err == nil {
			values = v
		}
	}
	return keys, values
}

// globalStoreName names a global table's store.
func globalStoreName(n *planner.Join) string {
	return n.Prefix + n.Right.Source.Name + "-GlobalStore"
}

// startGlobalJoin starts the sub-topology of a stream–global-table join:
// only the stream's topic has tasks (no repartition, any partition
// count); each stream row computes the table key with Left.Lookup and
// reads the query's global store.
//
//	Source-S ──► Join ──► (project, sink…)
//	               │ reads
//	Source-G ──► G-GlobalStore   (every partition, no tasks)
func (b *builder) startGlobalJoin(n *planner.Join) {
	g := GlobalStoreSpec{Name: globalStoreName(n), Topic: n.Right.Source.Topic, Source: n.Right.Source,
		parse: b.timestampParser(n.Right.Source)}
	g.keys, g.values = b.internal().globalFormats(n.Right.Source)
	b.topo.Globals = append(b.topo.Globals, g)
	if inner, ok := n.Left.Node.(*planner.Join); ok {
		// a star join: the earlier steps' rows, in their own segment,
		// each look up the global table in one more step
		b.startJoin(inner)
		b.addStep(step{desc: NodeDesc{Name: n.Prefix + joinNodeName, Stores: []string{g.Name}},
			make: func(env *TaskEnv, next Processor) (Processor, error) { return newGlobalJoin(env, n, g, next) }})
		return
	}
	seg := &segment{topics: []string{n.Left.Source.Topic}}
	b.cur = seg
	src := &NodeDesc{Kind: "Source", Name: "Source-" + n.Left.Source.Name, Topic: n.Left.Source.Topic}
	join := &NodeDesc{Kind: "Processor", Name: n.Prefix + joinNodeName, Stores: []string{g.Name}, Prev: []string{src.Name}}
	src.Next = []string{join.Name}
	seg.joinDescs = []*NodeDesc{src, join}
	seg.head = func(env *TaskEnv, next Processor) (rawProcessor, error) {
		join, err := newGlobalJoin(env, n, g, next)
		if err != nil {
			return nil, err
		}
		op, err := env.counted(join, n.Prefix+joinNodeName)
		if err != nil {
			return nil, err
		}
		head := &joinHead{byTopic: map[string]rawProcessor{}}
		return head, b.addSourceOp(env, head, n.Left.Source, op)
	}
}

// newGlobalJoin makes a task's join operator over the query's store g.
func newGlobalJoin(env *TaskEnv, n *planner.Join, g GlobalStoreSpec, next Processor) (*globalJoin, error) {
	s, err := env.global(g.Name)
	if err != nil {
		return nil, err
	}
	table, err := newSideStore(s, n.Right.Source.Schema, g.keys, g.values)
	if err != nil {
		return nil, err
	}
	op := &globalJoin{joiner: joiner{n: n}, env: env, table: table, left: n.Type == ast.LeftJoin, next: next, vals: newRowValues(next)}
	if w, ok := s.(GlobalWrites); ok {
		op.writes, op.seen, table.rows = w, w.Written(), newRowCache(rowCacheBytes)
	}
	return op, nil
}

// globalJoin is a stream's join with a global table (Kafka Streams'
// KStreamGlobalKTableJoin): each stream row looks up the table row whose
// key its lookup expression computes; the result keeps the stream row's
// key, time, partition and offset. A null or failing lookup key matches
// nothing (LEFT emits the row with nulls).
//
// A lookup sees every write the store applied before it, as a Get of the
// store under its lock does: when the store tells its writes
// (GlobalWrites), the task keeps the rows it decoded in a rowCache, and
// each lookup first drops the rows of the keys written since the last
// one (then reads the store for them again). A row read after the count
// of writes is taken is at least as new as that count, so a write the
// lookup misses is dropped by the next one.
type globalJoin struct {
	joiner
	env   *TaskEnv
	table *sideStore
	left  bool
	next  Processor
	out   types.Row // the output row (a Processor keeps no row it is given)
	vals  rowValues // the output rows' Values: one slice refilled when next borrows
	key   [1]any    // the lookup's key, reused (lookup copies what it keeps)
	// writes tells the store's writes to the row cache (nil: the store
	// keeps no count, the table has no cache); seen is the count of
	// writes the cache has dropped the keys of.
	writes GlobalWrites
	seen   uint64
}

// warm fills the task's cache with the whole table when it fits (one
// scan; then a key it does not hold has no row, rowCache). A table too
// big for it is cached by the lookups alone: warm would fill it with the
// first keys in key order, most of them other partitions' (the stream is
// partitioned, the table is whole), which the lookups' misses would then
// evict at random, together with the keys in use.
func (op *globalJoin) warm() {
	rows := op.table.rows
	if rows == nil || rows.warmed {
		return
	}
	op.table.warm(false)
	if !rows.complete {
		op.table.rows = newRowCache(rowCacheBytes)
		op.table.rows.warmed = true // filled by the lookups
	}
}

// catchUp drops the cached rows of the keys the store wrote since the
// last lookup (all of them when it no longer knows which).
func (op *globalJoin) catchUp() {
	if op.writes == nil || op.writes.Written() == op.seen {
		return
	}
	rows := op.table.rows
	now, ok := op.writes.WrittenSince(op.seen, rows.forget)
	if !ok {
		op.table.rows = newRowCache(rowCacheBytes) // warmed again by the lookup
	}
	op.seen = now
}

func (op *globalJoin) Process(row *types.Row) error {
	if row.Tombstone {
		op.env.skip() // a null value never joins
		return nil
	}
	right, null, err := op.lookup(row)
	if err != nil {
		return err
	}
	if right == nil && !op.left {
		if null {
			op.env.skip() // nor does a null lookup key of an inner join
		}
		return nil
	}
	var key []any // a keyless stream's result has no key
	if ki := op.n.Left.KeyIndex(); ki >= 0 {
		key = row.Values[ki : ki+1 : ki+1] // a view of the row's values (never written), not a copy
	}
	// the sides as withTime lays them out, without copying either: the
	// output slice is the joined row's only allocation (none when next
	// borrows)
	left, r := timed{vals: row.Values, ts: row.Time}, timed{}
	if right != nil {
		r = right.timed(nil)
	}
	out := &op.out
	*out = types.Row{Values: op.joinTimedInto(op.vals.get(len(op.n.Columns), 0), key, left, r), Time: row.Time,
		Partition: row.Partition, Offset: row.Offset, NullKey: row.NullKey}
	return op.next.Process(out)
}

// lookup returns the table row the stream row joins (nil: none); null
// says the lookup key was null (a failing one is logged instead).
func (op *globalJoin) lookup(row *types.Row) (right *sideRow, null bool, err error) {
	k, err := op.n.Left.Lookup.Eval(row)
	if err != nil {
		op.env.log(ExpressionError, "value", fmt.Sprintf("Error computing join key %s: %v", ast.FormatExpr(op.n.Left.LookupExpr), err), nil)
		return nil, false, nil
	}
	if k == nil {
		return nil, true, nil
	}
	op.catchUp()
	op.warm()
	op.key[0] = k
	t, err := op.table.lookup(op.key[:], op.n.Right.Keys, nil)
	return t, false, err
}

// GlobalNodes names the i-th global store's section of the description:
// its sub-topology number (after the task sub-topologies), its source
// node and the processor that materializes it.
func (t *Topology) GlobalNodes(i int) (sub int, source, materialize string) {
	g := t.Globals[i]
	return len(t.SubTopologies) + i, "Source-" + g.Source.Name, g.Name + "-Materialize"
}

// describeGlobals renders the global stores as Kafka Streams does: a
// sub-topology each that generates no tasks.
func (t *Topology) describeGlobals(b *strings.Builder) {
	for i, g := range t.Globals {
		sub, src, mat := t.GlobalNodes(i)
		fmt.Fprintf(b, "   Sub-topology: %d for global store (will not generate tasks)\n", sub)
		fmt.Fprintf(b, "    Source: %s (topics: [%s])\n      --> %s\n", src, g.Topic, mat)
		fmt.Fprintf(b, "    Processor: %s (stores: [%s])\n      <-- %s\n\n", mat, g.Name, src)
	}
}

var _ Processor = (*globalJoin)(nil)
