package physical

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/sqlstream/sqlstream/state"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/types"
)

// Names of the aggregation's internal topics and stores (stable across
// restarts: they name consumer-visible topics and local state).
const (
	groupByName     = "Aggregate-GroupBy"
	aggregateName   = "Aggregate-Aggregate"
	aggregateStore  = "Aggregate-Aggregate-Materialize"
	tableStore      = "Aggregate-Source-Materialize"
	retractHeader   = "sqlstream.retract"
	originHeader    = "sqlstream.origin" // topic, partition and offset of the record a repartition record came from
	repartitionName = groupByName + "-repartition"
)

// prepSchema is the layout of the rows between the group-by step and the
// aggregate: the group key columns, then every argument of every call,
// named after the call's accumulator (<accumulator>_ARG_j), so records
// an upgraded query finds in flight in the repartition topic give each
// kept aggregate its own arguments (a new one reads NULLs). Legacy
// queries (Options.LegacyStoreJSON) keep ARG_i_j by position. A JSON
// repartition topic writes them under shorter names (compactPrep).
func prepSchema(n *planner.Aggregate, legacy bool) *types.Schema {
	s := &types.Schema{Columns: append([]types.Column(nil), n.Schema().Keys()...)}
	accs := accumulatorColumns(n, legacy)
	for i, c := range n.Calls {
		for j, a := range c.Args {
			name := accs[i].Name + "_ARG_" + strconv.Itoa(j)
			if legacy {
				name = "ARG_" + strconv.Itoa(i) + "_" + strconv.Itoa(j)
			}
			s.Columns = append(s.Columns, types.Column{Name: name, Type: a.Type()})
		}
	}
	return s
}

// aggregate adds the group-by step, the repartition hop when the key
// changes, and the aggregate step with its store.
func (b *builder) aggregate(n *planner.Aggregate) error {
	prep := prepSchema(n, b.internal().legacyStore)
	var table StoreSpec
	in := n.Input.Schema()
	var rows inputRowFormats
	if n.OnTable {
		table = b.store(tableStore)
		rows = b.internal().inputRowSpecs(b.sourceFormats, table.Changelog, in)
	}
	b.addStep(step{desc: NodeDesc{Name: groupByName, Stores: storeNames(n.OnTable, table)},
		make: func(env *TaskEnv, next Processor) (Processor, error) {
			return newGroupByOp(env, n, in, table.Name, rows, next)
		}})
	if n.Repartition {
		topic := b.internalName(repartitionName)
		b.topo.Internal = append(b.topo.Internal, InternalTopic{Name: topic})
		key, value := b.prepFormats(topic, prep)
		b.topo.notePartitionKey(topic, key, prep.Keys())
		wire := prep
		if f := b.internal(); !f.legacy && !f.legacyStore && !b.opts.LegacyRepartitionNames {
			wire = compactPrep(prep, value)
		}
		b.addStep(step{desc: NodeDesc{Kind: "Sink", Name: repartitionName + "-sink", Topic: topic},
			make: func(env *TaskEnv, _ Processor) (Processor, error) {
				return newRepartitionSink(env, topic, wire, key, value)
			}})
		b.finish()
		b.cur = &segment{topics: []string{topic},
			headDesc: NodeDesc{Kind: "Source", Name: repartitionName + "-source", Topic: topic},
			head: func(env *TaskEnv, next Processor) (rawProcessor, error) {
				return newRepartitionSource(env, wire, key, value, next)
			}}
	}
	store := b.timedStore(aggregateStore)
	f := b.internal()
	formats := aggFormats{legacy: f.legacyStoreKeys, keys: f.storeKeySpec(b.sourceFormats.KeyFormat, store.Changelog, n.Schema().Keys()),
		states: f.aggStateSpec(b.sourceFormats.ValueFormat, store.Changelog, n)}
	if n.Window != nil {
		b.retainChangelog(store, windowRetention(n.Window))
	}
	names := []string{store.Name}
	if n.Window != nil && n.Window.Kind == ast.Sliding {
		raw := b.timedStore(slidingRawStore)
		formats.raw = f.rowStoreSpec(b.sourceFormats.ValueFormat, raw.Changelog, rawColumns(n, f.legacyStoreKeys))
		formats.rawKeys = f.storeKeySpec(b.sourceFormats.KeyFormat, raw.Changelog, n.Schema().Keys())
		names = append(names, raw.Name)
	}
	if n.Final {
		buffer := b.timedStore(suppressStore)
		formats.buffer = f.rowStoreSpec(b.sourceFormats.ValueFormat, buffer.Changelog, bufferColumns(n, f.legacyStoreKeys))
		formats.bufferKeys = f.storeKeySpec(b.sourceFormats.KeyFormat, buffer.Changelog, n.Schema().Keys())
		names = append(names, buffer.Name)
	}
	b.addStep(step{desc: NodeDesc{Name: aggregateName, Stores: names},
		make: func(env *TaskEnv, next Processor) (Processor, error) {
			if n.Window != nil && n.Window.Kind == ast.Sliding {
				w, err := newWindowAggOp(env, n, store.Name, formats, next)
				if err != nil {
					return nil, err
				}
				return newSlidingOp(w, formats)
			}
			if n.Window != nil {
				return newWindowAggOp(env, n, store.Name, formats, next)
			}
			return newAggregateOp(env, n, store.Name, formats, next)
		}})
	b.table, b.aggregated = true, true
	return nil
}

// aggFormats are the formats of an aggregation's stores: the aggregate
// store's keys (the group key; a windowed store appends the window) and
// values, the sliding window's raw rows and the EMIT FINAL buffer's
// values (see internalFormats.storeKeySpec and rowStoreSpec).
type aggFormats struct {
	keys    format.Spec
	states  stateFormat
	raw     format.Spec
	rawKeys format.Spec // the group key in the raw rows' keys
	buffer  format.Spec
	// bufferKeys: the group key in the buffer's keys (window end ‖ key ‖
	// window start).
	bufferKeys format.Spec
	// legacy: the buffer holds whole result rows and the raw rows their
	// arguments, columns by position (bufferColumns, rawColumns), as
	// queries recorded before wrote them (Options.LegacyStoreKeysJSON).
	legacy bool
}

func storeNames(has bool, s StoreSpec) []string {
	if !has {
		return nil
	}
	return []string{s.Name}
}

// inputRowFormats are the formats of a table aggregation's input-row
// store (see internalFormats.inputRowSpecs).
type inputRowFormats struct {
	// recordKey: the store is keyed by the input record's key bytes, as
	// it was for queries recorded before (Options.LegacyStoreKeysJSON)
	// and is for inputs without key columns; keys is unused then.
	recordKey  bool
	keys, rows format.Spec
	keyIndex   []int // the key columns' positions in the input rows
}

// groupByOp turns input rows into prep rows (group key + call arguments).
// On a table it keeps the latest row per table key in a store so an update
// first retracts the old row from its group, then adds the new one
// (Kafka Streams' KTable groupBy with a subtractor). Rows whose group key
// is NULL are dropped, as Kafka Streams drops null keys.
type groupByOp struct {
	env     *TaskEnv
	n       *planner.Aggregate
	next    Processor
	store   Store
	formats inputRowFormats
	keys    format.Codec // the table key of the rows in the table store
	codec   format.Codec // input rows in the table store
	nargs   int
	buf     []any
	keyBuf  []any
	out     types.Row // reused for every emitted row: the next operators copy what they keep
}

func newGroupByOp(env *TaskEnv, n *planner.Aggregate, in *types.Schema, store string, formats inputRowFormats, next Processor) (*groupByOp, error) {
	op := &groupByOp{env: env, n: n, next: next, buf: make([]any, len(in.Columns)), formats: formats}
	for _, c := range n.Calls {
		op.nargs += len(c.Args)
	}
	if !n.OnTable {
		return op, nil
	}
	var err error
	if op.store, err = env.store(store); err != nil {
		return nil, err
	}
	if op.codec, err = format.NewValueCodec(formats.rows, inputRowColumns(in)); err != nil || formats.recordKey {
		return op, err
	}
	op.keyBuf = make([]any, len(formats.keyIndex))
	op.keys, err = format.NewKeyCodec(formats.keys, in.Keys())
	return op, err
}

// inputRowColumns are the columns a table aggregation's input-row store
// keeps of each row: all of them, keys included (a retraction evaluates
// the group key and arguments over the whole old row).
func inputRowColumns(in *types.Schema) []types.Column {
	cols := make([]types.Column, len(in.Columns))
	for i, c := range in.Columns {
		cols[i] = types.Column{Name: c.Name, Type: c.Type}
	}
	return cols
}

// storeKey is the input-row store's key of row: its key columns in the
// store's key format, or the record's key bytes (inputRowFormats.recordKey).
func (op *groupByOp) storeKey(row *types.Row) ([]byte, error) {
	if op.formats.recordKey {
		return op.env.current.Key, nil
	}
	for i, idx := range op.formats.keyIndex {
		op.keyBuf[i] = row.Values[idx]
	}
	return op.keys.Encode(nil, op.keyBuf)
}

func (op *groupByOp) Process(row *types.Row) error {
	if !op.n.OnTable {
		if row.Tombstone {
			return nil // a null row has nothing to aggregate
		}
		return op.emit(row, false, false)
	}
	key, err := op.storeKey(row)
	if err != nil {
		return fmt.Errorf("table store of %s: %w", groupByName, err)
	}
	old, err := op.store.Get(key)
	if err != nil {
		return err
	}
	if old != nil {
		if err := op.retract(old, row); err != nil {
			return err
		}
	}
	if row.Tombstone {
		return op.store.Put(key, nil)
	}
	b, err := op.codec.Encode(nil, row.Values)
	if err != nil {
		return err
	}
	if err := op.store.Put(key, b); err != nil {
		return err
	}
	return op.emit(row, false, false)
}

// retract emits the old version of a table row as a retraction; it is
// quiet when the new version stays in the same group, so the aggregate
// emits one update instead of two.
func (op *groupByOp) retract(old []byte, now *types.Row) error {
	if err := op.codec.Decode(old, op.buf); err != nil {
		return fmt.Errorf("table store of %s: %w", groupByName, err)
	}
	prev := types.Row{Values: append([]any(nil), op.buf...), Time: now.Time, Partition: now.Partition, Offset: now.Offset}
	quiet := !now.Tombstone && op.sameGroup(&prev, now)
	return op.emit(&prev, true, quiet)
}

// sameGroup reports whether two rows have equal group keys.
func (op *groupByOp) sameGroup(a, b *types.Row) bool {
	for _, k := range op.n.Keys {
		x, errX := k.Eval(a)
		y, errY := k.Eval(b)
		if errX != nil || errY != nil || fmt.Sprint(x) != fmt.Sprint(y) {
			return false
		}
	}
	return true
}

func (op *groupByOp) emit(row *types.Row, retract, quiet bool) error {
	out := &op.out
	*out = types.Row{Values: op.out.Values[:0], Time: row.Time,
		Partition: row.Partition, Offset: row.Offset, Window: row.Window, Retract: retract, Quiet: quiet}
	for i, k := range op.n.Keys {
		v, err := k.Eval(row)
		if err != nil {
			op.env.log(ExpressionError, "key", fmt.Sprintf("Error computing GROUP BY %s: %v", ast.FormatExpr(op.n.GroupBy[i]), err), nil)
		}
		if v == nil {
			return nil
		}
		out.Values = append(out.Values, v)
	}
	for _, c := range op.n.Calls {
		for _, a := range c.Args {
			v, err := a.Eval(row)
			if err != nil {
				op.env.log(ExpressionError, "value", fmt.Sprintf("Error computing argument of %s: %v", ast.FormatExpr(c.Call), err), nil)
			}
			out.Values = append(out.Values, v)
		}
	}
	return op.next.Process(out)
}

// repartitionSink writes prep rows to the repartition topic, keyed by the
// group key so each group lands in one partition.
type repartitionSink struct {
	env   *TaskEnv
	topic string
	nkeys int
	key   format.Codec
	value format.Codec
	size  sizeHint // of a record's key, value and origin together (one buffer)
	// own is the record, headers its headers and bufs the buffer every
	// record is written into when the emitter copies them (BytesCopier);
	// otherwise each record is a new allocation (newRecord).
	own     repartitionRecord
	headers []Header
	bufs    encodeBufs
}

func newRepartitionSink(env *TaskEnv, topic string, prep *types.Schema, keys, values format.Spec) (*repartitionSink, error) {
	key, value, err := prepCodecs(prep, keys, values, format.NewKeyCodec)
	return &repartitionSink{env: env, topic: topic, nkeys: prep.NumKeys(), key: key, value: value,
		bufs: newEncodeBufs(env.Emit)}, err
}

// prepFormats are the formats of the GROUP BY repartition topic: the
// first source's key and value formats (see internalFormats).
func (b *builder) prepFormats(topic string, prep *types.Schema) (format.Spec, format.Spec) {
	f := b.internal()
	return f.keySpec(b.sourceFormats.KeyFormat, topic, prep.Keys()),
		f.valueSpec(b.sourceFormats.ValueFormat, topic, prep.Values())
}

// prepCodecs are the serdes of repartition records, the key's made by
// newKey.
func prepCodecs(prep *types.Schema, keys, values format.Spec, newKey func(format.Spec, []types.Column) (format.Codec, error)) (format.Codec, format.Codec, error) {
	key, err := newKey(keys, prep.Keys())
	if err != nil {
		return nil, nil, err
	}
	value, err := format.NewValueCodec(values, prep.Values())
	return key, value, err
}

// Process writes row's record: its key, value and origin header in one
// buffer (sized from the last record's), the record and its headers in
// one allocation when the input has no headers of its own, and the
// buffer in that allocation too when the last record's bytes fit there;
// before an emitter that copies them, in the sink's own record and
// buffer (newRecord).
func (s *repartitionSink) Process(row *types.Row) error {
	rr, buf := s.newRecord()
	k, err := s.key.Encode(buf, row.Values[:s.nkeys])
	if err != nil {
		return err
	}
	v, err := s.value.Encode(k[len(k):], row.Values[s.nkeys:])
	if err != nil {
		return err
	}
	if v == nil {
		v = []byte{}
	}
	rest := v[len(v):] // the origin and the retract flag go after the value
	k, v = k[:len(k):len(k)], v[:len(v):len(v)]
	*rr = repartitionRecord{rec: OutRecord{Topic: s.topic, Partition: -1, Key: k, Value: v, Timestamp: row.Time}}
	rec := &rr.rec
	rec.Headers = rr.room[:0]
	if s.bufs.reuse {
		rec.Headers = s.headers[:0]
	}
	if cur := s.env.current; cur != nil {
		o := appendOrigin(rest, cur)
		rest = o[len(o):]
		rec.Headers = appendUserHeaders(rec.Headers, cur.Headers)
		rec.Headers = append(rec.Headers, Header{Key: originHeader, Value: o[:len(o):len(o)]})
	}
	if row.Retract {
		flag := append(rest, retractFlag(row.Quiet))
		rest = flag[1:]
		rec.Headers = append(rec.Headers, Header{Key: retractHeader, Value: flag[:1:1]})
	}
	s.size.last = len(k) + len(v) + headerBytes(rec.Headers) // room for the next record's
	if s.bufs.reuse {
		s.headers = rec.Headers // grown past the input's user headers, kept
	}
	s.env.Emit.Emit(rec)
	return nil
}

// retractFlag is the retract header's value: 1 a retraction, 2 a quiet
// one (an add for the same group follows).
func retractFlag(quiet bool) byte {
	if quiet {
		return 2
	}
	return 1
}

// headerBytes is the bytes of hs's values (the user headers' too, which
// are not in the record's buffer: a little room to spare).
func headerBytes(hs []Header) int {
	n := 0
	for _, h := range hs {
		n += len(h.Value)
	}
	return n
}

// repartitionRecord is a repartition record with room for its headers
// (origin, retract flag) in the same allocation.
type repartitionRecord struct {
	rec  OutRecord
	room [2]Header
}

// repartitionInline is the bytes a repartition record may carry in its
// own allocation (key, value, origin and flag): a short group key's
// record (a page, a COUNT(*)'s empty value and the origin are about 30
// bytes) then needs no buffer of its own.
const repartitionInline = 64

// inlineRepartitionRecord is a repartition record with its bytes.
type inlineRepartitionRecord struct {
	repartitionRecord
	bytes [repartitionInline]byte
}

// newRecord returns a record and an empty buffer with room for a record
// like the last: the sink's own, reused, when the emitter copies them;
// else new ones, the buffer in the record's allocation when that fits.
func (s *repartitionSink) newRecord() (*repartitionRecord, []byte) {
	if s.bufs.reuse {
		return &s.own, s.bufs.forKey(s.size.last + s.size.last/4 + 8)
	}
	if last := s.size.last; last > 0 && last+last/4+8 <= repartitionInline {
		ir := new(inlineRepartitionRecord)
		return &ir.repartitionRecord, ir.bytes[:0]
	}
	return new(repartitionRecord), s.size.buf()
}

// compactPrep is the layout a JSON repartition topic's records are
// written in: prep with each argument column named A<hash of its prep
// name> ("A" and 8 hex digits, and "_<k>" for a hash shared within the
// query), where its prep name, KSQL_AGG_<FUNCTION>_<hash>_ARG_<j>, is 27
// to 41 characters. JSON writes every name in every record: Nexmark
// q17's seven arguments were 210 of a value's 245 bytes, encoded,
// produced, fetched and scanned per record. The short name follows the
// prep name, so it keeps what the prep names are for: an upgraded query's
// in-flight records give each kept aggregate its own arguments.
//
// Queries of commands recorded before keep the prep names
// (Options.LegacyRepartitionNames), as their upgrades do, so every
// record a query reads is in the layout it writes. Other formats keep
// prep: Avro and Protobuf carry no names in a record, a registry
// format's schema is its subject's, and a single unwrapped JSON value
// has no name.
func compactPrep(prep *types.Schema, value format.Spec) *types.Schema {
	args := prep.Values()
	if value.Name != format.JSON || len(args) == 0 || value.WrapSingle != nil && !*value.WrapSingle {
		return prep
	}
	wire := &types.Schema{Columns: append([]types.Column(nil), prep.Keys()...)}
	seen := map[string]int{}
	for _, c := range args {
		h := fnv.New32a()
		h.Write([]byte(c.Name))
		base := fmt.Sprintf("A%08X", h.Sum32())
		name := base
		if k := seen[base]; k > 0 {
			name += "_" + strconv.Itoa(k)
		}
		seen[base]++
		wire.Columns = append(wire.Columns, types.Column{Name: name, Type: c.Type, NS: c.NS})
	}
	return wire
}

// repartitionSource reads prep rows back from the repartition topic.
type repartitionSource struct {
	env   *TaskEnv
	nkeys int
	n     int
	key   format.Codec
	value format.Codec
	next  Processor
	row   types.Row // reused for every row: the next operators copy what they keep
}

func newRepartitionSource(env *TaskEnv, prep *types.Schema, keys, values format.Spec, next Processor) (*repartitionSource, error) {
	// The key codec is the task's own (it decodes on the task's
	// goroutine): a KAFKA key decodes into its arena, not two
	// allocations a record.
	key, value, err := prepCodecs(prep, keys, values, format.NewTaskKeyCodec)
	return &repartitionSource{env: env, nkeys: prep.NumKeys(), n: len(prep.Columns), key: key, value: value, next: next}, err
}

func (s *repartitionSource) ProcessRaw(r *InRecord) error {
	s.env.current = r
	vals := s.row.Values
	if vals == nil {
		vals = make([]any, s.n)
	}
	clear(vals) // no slot keeps the last row's value
	row := &s.row
	*row = types.Row{Values: vals, Time: r.Timestamp, Partition: r.Partition, Offset: r.Offset}
	if err := s.key.Decode(r.Key, row.Values[:s.nkeys]); err != nil {
		return internalDecodeError(s.env, "key", err, r, r.Key)
	}
	if err := s.value.Decode(r.Value, row.Values[s.nkeys:]); err != nil {
		return internalDecodeError(s.env, "value", err, r, r.Value)
	}
	for _, h := range r.Headers {
		if h.Key == retractHeader {
			row.Retract = true
			row.Quiet = len(h.Value) == 1 && h.Value[0] == 2
		}
	}
	return s.next.Process(row)
}

// aggregateOp keeps one accumulator per aggregate call and group in its
// store (value: 8-byte big-endian timestamp, then the accumulators in
// the query's value format, see aggState) under the group key (in the
// query's key format, see internalFormats.storeKeySpec) and forwards the
// group's new result row on every update. The result's timestamp is the
// largest input timestamp the group has seen.
type aggregateOp struct {
	env   *TaskEnv
	n     *planner.Aggregate
	next  Processor
	store Store
	key   format.Codec
	state *aggState
	nkeys int
	accs  []any
	out   types.Row // the forwarded row (the struct: Processor's successors copy a Row they keep)
	// outs and olds give the forwarded rows' Values and Old: one slice
	// each, refilled, when the successor borrows (a projection, in
	// practice), else fresh slices the successor may keep.
	outs, olds rowValues
	keyBuf     []byte // the group's store key, reused (the store copies what it keeps)
	encBuf     []byte // encode's scratch (windowed aggregations)
	size       int    // the loaded group's stored size (aggValue.size)
	known      []any  // the loaded group's results when its value carried them (aggValue.results), else nil
	before     []any  // the accumulators before the update
	// loaded is the group's value as this operator last put it, when the
	// store's cache still held it (nil otherwise): save updates it in
	// place and puts it again, instead of a new value per update.
	loaded *aggValue
	// owners are the calls' OwnedAdders (nil for the others, and past the
	// 64th call); owned has bit i set while accs[i]'s memory is this
	// operator's alone (aggValue.owned): made by Init or a copying Add
	// for this task, never decoded from bytes, which the store, a codec
	// buffer or the changelog may share. Such an accumulator is updated
	// in place (apply).
	owners []functions.OwnedAdder
	owned  uint64
	// A quiet retract leaves the group's previous result here for the
	// add that follows it.
	quietBefore    bool
	pendingOld     []any
	pendingExisted bool
	// cache, when set, takes the forwarded rows and passes each group's
	// latest on when the task's stores flush (outputCache, TaskEnv.CacheOutputs).
	cache *outputCache
}

func newAggregateOp(env *TaskEnv, n *planner.Aggregate, store string, formats aggFormats, next Processor) (*aggregateOp, error) {
	op := &aggregateOp{env: env, n: n, next: next, nkeys: len(n.Keys), accs: make([]any, len(n.Calls)), before: make([]any, len(n.Calls))}
	op.outs, op.olds = newRowValues(next), newRowValues(next)
	if env.CacheOutputs && n.Window == nil {
		// Only an unwindowed aggregation collapses. A windowed one
		// forwards each update: resolved issue 5 states that EMIT
		// CHANGES emits each update of a window (and EMIT FINAL one
		// result per window, from its buffer). Kafka Streams' cache
		// collapses windowed updates too: a recorded deviation, which
		// also spares a windowed count, whose keys are mostly updated
		// once a window, a cache that would hold them for nothing.
		// The cache copies what it keeps.
		op.cache = newOutputCache(env, next)
		op.outs.reuse, op.olds.reuse = op.cache.borrowsValues(), op.cache.borrowsValues()
	}
	var err error
	if op.store, err = env.store(store); err != nil {
		return nil, err
	}
	if op.key, err = format.NewKeyCodec(formats.keys, n.Schema().Keys()); err != nil {
		return nil, fmt.Errorf("%s keys: %w", aggregateStore, err)
	}
	op.state, err = newAggState(n, formats.states)
	for i, c := range n.Calls {
		if o, ok := functions.OwnedAdderOf(c.Agg); ok && i < 64 {
			if op.owners == nil {
				op.owners = make([]functions.OwnedAdder, len(n.Calls))
			}
			op.owners[i] = o
		}
	}
	return op, err
}

func (op *aggregateOp) Process(row *types.Row) error {
	key, err := op.key.Encode(op.keyBuf[:0], row.Values[:op.nkeys])
	if err != nil {
		return err
	}
	op.keyBuf = key
	ts, existed, err := op.load(key)
	if err != nil {
		return err
	}
	var old []any
	if existed && !row.Quiet && !op.quietBefore {
		old = op.priorResults(row)
	}
	if op.quietBefore {
		old, existed = op.pendingOld, op.pendingExisted
	}
	copy(op.before, op.accs)
	if err := op.apply(row); err != nil {
		op.env.log(ExpressionError, "value", err.Error(), nil)
		return nil
	}
	ts = max(ts, row.Time)
	vals := op.newResults(!row.Quiet)
	if err := op.save(key, ts, vals); err != nil {
		return err
	}
	if row.Quiet {
		// The add for the same group follows: remember what the group
		// looked like before this update and emit once, then.
		op.quietBefore, op.pendingOld, op.pendingExisted = true, op.oldResults(existed, row), existed
		return nil
	}
	op.quietBefore = false
	return op.forward(row, ts, old, vals)
}

// priorResults is the group's result row before the update, for the
// forwarded row's Old (olds): the results its stored value carries when
// it was still in the cache, else computed.
func (op *aggregateOp) priorResults(row *types.Row) []any {
	dst := op.olds.get(0, op.nkeys+len(op.n.Calls))
	if op.known == nil {
		return op.resultsInto(dst, row)
	}
	return append(append(dst, row.Values[:op.nkeys]...), op.known...)
}

// newResults are the aggregates' results after the update. An
// accumulator the update left as it was (COUNT_DISTINCT's sketch when no
// register rose) keeps its known result: a sketch's estimate reads all
// its registers. logErrs: a function's failure goes to the processing
// log (when the row is forwarded).
//
// They go into the loaded value's results when there is one (save puts
// that value again; each result is read, at most, before its own slot
// is written), else into a new slice for the new value.
func (op *aggregateOp) newResults(logErrs bool) []any {
	var vals []any
	if op.loaded != nil && len(op.loaded.results) == len(op.n.Calls) {
		vals = op.loaded.results
	} else {
		vals = make([]any, len(op.n.Calls))
	}
	for i, c := range op.n.Calls {
		if op.known != nil && sameAccumulator(op.before[i], op.accs[i]) {
			vals[i] = op.known[i]
			continue
		}
		v, err := c.Agg.Result(op.accs[i])
		if err != nil && logErrs {
			op.env.log(ExpressionError, "value", fmt.Sprintf("%s: %v", ast.FormatExpr(c.Call), err), nil)
		}
		vals[i] = v
	}
	return vals
}

// sameAccumulator reports whether b is a, unchanged: the same struct
// (an Add that changes nothing returns its input, one that changes it a
// new struct, AddOwned too). Other kinds of accumulator count as changed.
func sameAccumulator(a, b any) bool {
	x, ok := a.(*types.StructValue)
	y, ok2 := b.(*types.StructValue)
	return ok && ok2 && x == y
}

// load reads the group's accumulators (initial ones for a new group) and
// its timestamp.
func (op *aggregateOp) load(key []byte) (int64, bool, error) {
	l, b, err := state.GetLazy(op.store, key)
	if err != nil {
		return 0, false, err
	}
	ts, hit, b, err := op.cached(l, b)
	if hit || err != nil {
		return ts, hit, err
	}
	if b == nil {
		for i, c := range op.n.Calls {
			op.accs[i] = c.Agg.Init()
		}
		op.owned = ^uint64(0) // Init's memory is new
		op.size = 8 + 16*len(op.accs)
		return -1 << 63, false, nil
	}
	if len(b) < 8 {
		return 0, false, &state.CorruptError{What: fmt.Sprintf("%s state for key %q", aggregateStore, key)}
	}
	if err := op.state.Decode(b[8:], op.accs); err != nil {
		return 0, false, &state.CorruptError{What: fmt.Sprintf("%s state for key %q (%v)", aggregateStore, key, err)}
	}
	op.size = len(b)
	return int64(binary.BigEndian.Uint64(b)), true, nil
}

// cached takes what GetLazy found: the accumulators of a value this
// operator put (hit), else the bytes (made from another's value).
func (op *aggregateOp) cached(l state.Lazy, b []byte) (int64, bool, []byte, error) {
	op.known, op.loaded, op.owned = nil, nil, 0
	if v, ok := l.(*aggValue); ok && v.state == op.state {
		copy(op.accs, v.accs)
		op.size, op.known, op.loaded, op.owned = v.size, v.results, v, v.owned
		return v.ts, true, nil, nil
	}
	if l == nil {
		return 0, false, b, nil
	}
	b, err := l.AppendBytes(nil)
	return 0, false, b, err
}

// results computes the group's current result row (before an update).
func (op *aggregateOp) results(row *types.Row) []any {
	return op.resultsInto(make([]any, 0, op.nkeys+len(op.n.Calls)), row)
}

// resultsInto appends the group key and the aggregate results to dst.
func (op *aggregateOp) resultsInto(dst []any, row *types.Row) []any {
	dst = append(dst, row.Values[:op.nkeys]...)
	for i, c := range op.n.Calls {
		v, _ := c.Agg.Result(op.accs[i])
		dst = append(dst, v)
	}
	return dst
}

func (op *aggregateOp) oldResults(existed bool, row *types.Row) []any {
	if !existed {
		return nil
	}
	return op.results(row)
}

// apply updates the accumulators with row. The ones this operator owns
// with an OwnedAdder are written in place, after every other call has
// succeeded: a failing call drops the row, and the group's state (the
// cache's value shares those accumulators) must then be as it was.
func (op *aggregateOp) apply(row *types.Row) error {
	at := op.nkeys
	for i, c := range op.n.Calls {
		args := row.Values[at : at+len(c.Args)]
		at += len(c.Args)
		if op.inPlace(i, row) {
			continue
		}
		prev := op.accs[i]
		var err error
		if row.Retract {
			op.accs[i], err = undo(c, prev, args)
		} else {
			op.accs[i], err = c.Agg.Add(prev, args)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", ast.FormatExpr(c.Call), err)
		}
		if op.owners != nil && i < 64 && !sameAccumulator(prev, op.accs[i]) {
			// An OwnedAdder's Add returns memory of its own; an Undo's
			// result is not known to be.
			if op.owners[i] != nil && !row.Retract {
				op.owned |= 1 << i
			} else {
				op.owned &^= 1 << i
			}
		}
	}
	if op.owners == nil || row.Retract {
		return nil
	}
	at = op.nkeys
	for i, c := range op.n.Calls {
		args := row.Values[at : at+len(c.Args)]
		at += len(c.Args)
		if op.inPlace(i, row) {
			op.accs[i] = op.owners[i].AddOwned(op.accs[i], args)
		}
	}
	return nil
}

// inPlace reports whether apply updates accumulator i in place for row.
func (op *aggregateOp) inPlace(i int, row *types.Row) bool {
	return op.owners != nil && !row.Retract && i < 64 && op.owners[i] != nil && op.owned&(1<<i) != 0
}

// save puts the group's accumulators as they are (aggValue): the cache
// encodes them when it writes them down, not on every update. A value
// the cache holds for the group (loaded) is updated in place and put
// again: the cache's entry already points at it and nothing else does,
// and no write-down runs between the load and this put, so it is as if
// a new value replaced it.
func (op *aggregateOp) save(key []byte, ts int64, results []any) error {
	v := op.loaded
	if v == nil || len(v.accs) != len(op.accs) {
		v = &aggValue{state: op.state, accs: slices.Clone(op.accs), size: op.size}
	} else {
		copy(v.accs, op.accs)
	}
	v.ts, v.results, v.owned = ts, results, op.owned
	return state.PutLazy(op.store, key, v)
}

// aggValue is a group's stored value kept decoded in the store's cache
// (a state.Lazy): its timestamp and accumulators, which are immutable
// values (an Aggregator's Add returns a new one), so the snapshot stays
// what was put, but for those the operator owns (owned), which it writes
// in place only between loading this value and putting it again, with
// no write-down between. Its bytes are those save wrote before: the 8-byte
// timestamp, then the accumulators in the state's codec. It is exact as
// long as the aggregate operator is its store's only writer, as it is:
// a restore runs before the task, and nothing else writes the store.
type aggValue struct {
	state *aggState
	ts    int64
	accs  []any
	// results are the aggregates' results of accs (not part of the bytes).
	results []any
	size    int    // the bytes last made (or read) for the group, an estimate until these are made
	owned   uint64 // the accumulators whose memory the operator owns (aggregateOp.owned)
}

var _ state.Lazy = (*aggValue)(nil)

func (v *aggValue) AppendBytes(dst []byte) ([]byte, error) {
	start := len(dst)
	dst, err := v.state.Encode(binary.BigEndian.AppendUint64(dst, uint64(v.ts)), v.accs)
	v.size = len(dst) - start
	return dst, err
}

func (v *aggValue) Size() int { return v.size }

// forward sends the group's new result row (vals: newResults) on.
func (op *aggregateOp) forward(row *types.Row, ts int64, old, vals []any) error {
	out := &op.out
	*out = types.Row{Values: append(append(op.outs.get(0, op.nkeys+len(vals)), row.Values[:op.nkeys]...), vals...), Time: ts,
		Partition: row.Partition, Offset: row.Offset, Window: row.Window, Old: old, HasOld: true}
	return op.pass(op.keyBuf, out)
}

// pass forwards out, the update of the group whose
// store key is key: to the cache when there is one, else on at once.
func (op *aggregateOp) pass(key []byte, out *types.Row) error {
	if op.cache != nil {
		op.cache.put(key, out)
		return nil
	}
	return op.next.Process(out)
}

// userHeaders drops sqlstream's internal headers from a record's headers.
func userHeaders(hs []Header) []Header {
	for i, h := range hs {
		if internalHeader(h.Key) {
			out := append([]Header(nil), hs[:i]...)
			for _, h := range hs[i+1:] {
				if !internalHeader(h.Key) {
					out = append(out, h)
				}
			}
			return out
		}
	}
	return hs
}

func internalHeader(k string) bool { return k == retractHeader || k == originHeader }

// appendOrigin appends the origin header's value of a record read from r
// to dst: where it came from (the first hop's source record, if r itself
// came through a repartition topic) as topic/partition/offset.
func appendOrigin(dst []byte, r *InRecord) []byte {
	for _, h := range r.Headers {
		if h.Key == originHeader {
			return append(dst, h.Value...)
		}
	}
	dst = strconv.AppendInt(append(append(dst, r.Topic...), '/'), int64(r.Partition), 10)
	return strconv.AppendInt(append(dst, '/'), r.Offset, 10)
}

// appendUserHeaders appends the headers of hs that are not sqlstream's
// internal ones to dst.
func appendUserHeaders(dst, hs []Header) []Header {
	for _, h := range hs {
		if !internalHeader(h.Key) {
			dst = append(dst, h)
		}
	}
	return dst
}

// origin returns the source topic, partition and offset of the record
// being processed, looking through repartition hops.
func origin(r *InRecord) (string, int32, int64) {
	for _, h := range r.Headers {
		if h.Key != originHeader {
			continue
		}
		var topic string
		var p int32
		var off int64
		s := string(h.Value)
		i := strings.LastIndexByte(s, '/')
		j := strings.LastIndexByte(s[:max(i, 0)], '/')
		if i > 0 && j > 0 {
			topic = s[:j]
			if _, err := fmt.Sscanf(s[j+1:], "%d/%d", &p, &off); err == nil {
				return topic, p, off
			}
		}
	}
	return r.Topic, r.Partition, r.Offset
}

// retainChangelog gives a windowed store's changelog a time retention:
// the window retention plus a day, as Kafka Streams does, so expired
// windows also leave the topic.
func (b *builder) retainChangelog(s StoreSpec, retention int64) {
	for i := range b.topo.Internal {
		if b.topo.Internal[i].Name == s.Changelog {
			b.topo.Internal[i].RetentionMs = retention + 24*60*60*1000
		}
	}
}
