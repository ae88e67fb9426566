package physical

import (
	"fmt"
	"math"
	"slices"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
)

// startJoin starts the sub-topology of a join: both sides' topics feed one
// task per partition (they are co-partitioned, checked when the query
// starts). A table side is kept in a changelogged store; the stream side
// of a stream–table join is not stored, its rows trigger lookups.
//
//	Source-L ──────────────────────────────► Join ──► (project, sink…)
//	Source-R ──► Join-Right-Materialize ──┘        (stream–table: R only updates)
//
// A stream side joined on anything but its key is re-keyed by a
// sub-topology of its own into `Join-repartition` (stream–stream:
// `Join-left-repartition` / `Join-right-repartition`), which the join's
// sub-topology reads instead of the stream's topic. A stream–stream join
// keeps both sides in window stores (startStreamJoin).
func (b *builder) startJoin(n *planner.Join) {
	if n.Foreign() {
		b.startForeignJoin(n)
		return
	}
	if n.Global() {
		b.startGlobalJoin(n)
		return
	}
	t := joinTopics{left: n.Left.Source.Topic, right: n.Right.Source.Topic}
	if n.Left.Rekeyed() {
		t.left = b.rekeySide(n, planner.JoinLeft)
	} else if n.Left.Reformat {
		t.left = b.reformatTable(n, planner.JoinLeft)
	}
	if n.Right.Rekeyed() {
		t.right = b.rekeySide(n, planner.JoinRight)
	} else if n.Right.Reformat {
		t.right = b.reformatTable(n, planner.JoinRight)
	}
	seg := b.joinSegment(n, &t)
	b.table = n.Shape == planner.TableTable
	defer b.linkNested(seg, t)
	if n.Shape == planner.StreamStream {
		b.startStreamJoin(n, seg, t)
		return
	}
	if n.AsOf != nil {
		b.startAsOfJoin(n, seg, t)
		return
	}
	var stores [2]StoreSpec
	if n.Shape == planner.TableTable {
		stores[0] = b.timedStore(joinStoreName(n, planner.JoinLeft))
	}
	stores[1] = b.timedStore(joinStoreName(n, planner.JoinRight))
	seg.joinDescs = joinDescs(n, stores, t)
	seg.head = func(env *TaskEnv, next Processor) (rawProcessor, error) {
		return b.newJoinHead(env, n, t, next)
	}
}

// The names of a join's nodes (after the join's Prefix, which tells the
// steps of an n-way join apart): its descriptions and the counters its
// operators take (TaskEnv.counted) name them alike.
const (
	joinNodeName         = "Join"
	leftMaterializeName  = "Join-Left-Materialize"
	rightMaterializeName = "Join-Right-Materialize"
	thisJoinName         = "Join-this-join"
	otherJoinName        = "Join-other-join"
	mergeName            = "Join-merge"
)

// joinSegment starts the join's segment. The nested step of an n-way
// join that is joined on its key runs in the same sub-topology: its
// segment is continued, its output rows feeding this join's left side.
func (b *builder) joinSegment(n *planner.Join, t *joinTopics) *segment {
	inner, ok := n.Left.Node.(*planner.Join)
	if !ok || n.Left.Rekeyed() {
		b.cur = &segment{topics: []string{t.left, t.right}}
		return b.cur
	}
	b.startJoin(inner)
	seg := b.cur
	part := &nestedJoin{head: seg.head, descs: seg.joinDescs}
	t.nested = part
	seg.topics = append(slices.Clone(seg.topics), t.right)
	return seg
}

// nestedJoin is a nested join step running in its parent's sub-topology:
// its head (given the parent's left operator) and its node descriptions.
type nestedJoin struct {
	head  func(env *TaskEnv, next Processor) (rawProcessor, error)
	descs []*NodeDesc
}

// last is the nested step's output node.
func (p *nestedJoin) last() *NodeDesc { return p.descs[len(p.descs)-1] }

// linkNested puts a nested step's nodes before the join's own (which
// name its output node as their left source).
func (b *builder) linkNested(seg *segment, t joinTopics) {
	if t.nested == nil {
		return
	}
	out := slices.Clone(t.nested.descs)
	for _, d := range seg.joinDescs {
		if d != t.nested.last() {
			out = append(out, d)
		}
	}
	seg.joinDescs = out
}

// newJoinHead makes a task's join operators and the two source operators
// feeding them.
func (b *builder) newJoinHead(env *TaskEnv, n *planner.Join, t joinTopics, next Processor) (rawProcessor, error) {
	right, err := b.openJoinStore(env, n, planner.JoinRight)
	if err != nil {
		return nil, err
	}
	var lp, rp Processor
	j := joiner{n: n}
	join, lm, rm := n.Prefix+joinNodeName, n.Prefix+leftMaterializeName, n.Prefix+rightMaterializeName
	if n.Shape == planner.TableTable {
		left, err := b.openJoinStore(env, n, planner.JoinLeft)
		if err != nil {
			return nil, err
		}
		// each side's operator is its materialization and the join
		if lp, err = env.counted(&tableTableJoin{joiner: j, side: planner.JoinLeft, this: left, other: right, next: next}, lm, join); err != nil {
			return nil, err
		}
		rp, err = env.counted(&tableTableJoin{joiner: j, side: planner.JoinRight, this: right, other: left, next: next}, rm, join)
	} else {
		if lp, err = env.counted(&streamTableJoin{joiner: j, table: right, left: n.Type == ast.LeftJoin, env: env, next: next, vals: newRowValues(next)}, join); err != nil {
			return nil, err
		}
		rp, err = env.counted(&tableSide{table: right}, rm)
	}
	if err != nil {
		return nil, err
	}
	return b.joinSources(env, n, t, lp, rp)
}

// openJoinStore opens the store of a table side of a stream–table or
// table–table join, its keys in the format the side's rows arrive in
// (the left's for a reformatted right table) and its values in the
// table's value format, under its changelog's subjects.
func (b *builder) openJoinStore(env *TaskEnv, n *planner.Join, side planner.JoinSide) (*sideStore, error) {
	in := joinInput(n, side)
	kf := in.Source.KeyFormat
	if in.Reformat {
		kf = reformatKeyFormat(n)
	}
	name := joinStoreName(n, side)
	changelog := b.internalName(name + "-changelog")
	keys := b.internal().keySpec(kf, changelog, in.Source.Schema.Keys())
	values := b.internal().storeValueSpec(in.Source.ValueFormat, changelog, valueColumns(in.Source.Schema))
	s, err := openSideStore(env, name, in.Source.Schema, keys, values)
	if err != nil {
		return nil, err
	}
	s.rows = newRowCache(rowCacheBytes) // its writes are this task's table side's (rowCache)
	return s, nil
}

// windowKeys is the key format of a stream–stream join's window store
// st: the join key's, which the repartition topics carry too, under the
// store's changelog's subject. The two stores' codecs write equal keys
// with equal bytes only where the registry gives equal schemas one id,
// so a side looks the other up with the other's codec.
func (b *builder) windowKeys(n *planner.Join, st StoreSpec) format.Spec {
	return b.internal().keySpec(keptKeyFormat(n), st.Changelog, joinKeyColumns(n.KeyTypes()))
}

// windowValues is the format of the rows a stream–stream join's window
// store st keeps of src: src's value format (as ksqlDB's JOINTHIS /
// JOINOTHER stores), under the changelog's subject; with bounds each
// row's window after its columns.
func (b *builder) windowValues(src *planner.Source, st StoreSpec, bounds bool) format.Spec {
	return b.internal().valueSpec(src.ValueFormat, st.Changelog, windowColumns(src, bounds))
}

// joinTopics are the topics a join's sub-topology reads for each side:
// the source's, or the repartition topic of a re-keyed side; or, for a
// nested step joined on its key, none: nested runs it in the same task.
type joinTopics struct {
	left, right string
	nested      *nestedJoin
}

// joinSources makes the join's head: each side's source operator (the
// repartition topic's for a re-keyed left side) feeding lp and rp.
func (b *builder) joinSources(env *TaskEnv, n *planner.Join, t joinTopics, lp, rp Processor) (rawProcessor, error) {
	head := &joinHead{byTopic: map[string]rawProcessor{}}
	for _, side := range []struct {
		side  planner.JoinSide
		topic string
		next  Processor
	}{{planner.JoinLeft, t.left, lp}, {planner.JoinRight, t.right, rp}} {
		in := joinInput(n, side.side)
		if in.Nested() && !in.Rekeyed() {
			if err := addNestedHead(env, head, t.nested, side.next); err != nil {
				return nil, err
			}
			continue
		}
		if in.Reformat {
			if err := b.addSourceOp(env, head, reformatted(n, side.side, b.internal(), side.topic), side.next); err != nil {
				return nil, err
			}
			continue
		}
		if !in.Rekeyed() {
			if err := b.addSourceOp(env, head, in.Source, side.next); err != nil {
				return nil, err
			}
			continue
		}
		src, err := newJoinRepartitionSource(env, n, side.side, b.internal(), side.topic, side.next)
		if err != nil {
			return nil, err
		}
		head.byTopic[side.topic] = src
	}
	return head, nil
}

// addNestedHead makes a nested step's operators, feeding next, and reads
// its topics in head.
func addNestedHead(env *TaskEnv, head *joinHead, nested *nestedJoin, next Processor) error {
	p, err := nested.head(env, next)
	if err != nil {
		return err
	}
	inner, ok := p.(*joinHead)
	if !ok {
		return fmt.Errorf("nested join step has no join head")
	}
	for topic, op := range inner.byTopic {
		head.byTopic[topic] = op
	}
	return nil
}

func (b *builder) addSourceOp(env *TaskEnv, head *joinHead, src *planner.Source, next Processor) error {
	op, err := newSourceOp(env, src, next, b.timestampParser(src))
	if err != nil {
		return err
	}
	head.byTopic[src.Topic] = op
	return nil
}

// joinDescs describes the nodes of a join below the operators above it;
// the last one ("Join") is where the segment's steps attach.
func joinDescs(n *planner.Join, stores [2]StoreSpec, t joinTopics) []*NodeDesc {
	ls, rs := sourceDescs(n, t)
	join := &NodeDesc{Kind: "Processor", Name: n.Prefix + joinNodeName}
	rm := &NodeDesc{Kind: "Processor", Name: n.Prefix + rightMaterializeName, Stores: []string{stores[1].Name}, Prev: []string{rs.Name}}
	rs.Next = []string{rm.Name}
	if n.Shape != planner.TableTable {
		ls.Next, join.Prev = []string{join.Name}, []string{ls.Name}
		join.Stores = []string{stores[1].Name}
		return []*NodeDesc{ls, rs, rm, join}
	}
	lm := &NodeDesc{Kind: "Processor", Name: n.Prefix + leftMaterializeName, Stores: []string{stores[0].Name}, Prev: []string{ls.Name}, Next: []string{join.Name}}
	ls.Next = []string{lm.Name}
	rm.Next = []string{join.Name}
	join.Prev = []string{lm.Name, rm.Name}
	join.Stores = []string{stores[0].Name, stores[1].Name}
	return []*NodeDesc{ls, rs, lm, rm, join}
}

// startStreamJoin makes a windowed stream–stream join: both sides in
// window stores (retention before + after + grace, changelogs
// compact,delete), each side's rows joining the other's.
func (b *builder) startStreamJoin(n *planner.Join, seg *segment, t joinTopics) {
	w := n.Within
	retention := w.Before + w.After + joinGrace(w)
	base := b.streamJoinBase(n)
	ln, rn := streamJoinStores(n, base)
	ls, rs := b.uncachedStore(ln), b.uncachedStore(rn)
	b.retainChangelog(ls, retention)
	b.retainChangelog(rs, retention)
	var shared StoreSpec
	if w.Grace >= 0 && n.Type != ast.InnerJoin {
		shared = b.store(sharedStoreName(base))
	}
	seg.joinDescs = streamJoinDescs(n, ls.Name, rs.Name, shared.Name, t)

	seg.head = func(env *TaskEnv, next Processor) (rawProcessor, error) {
		next, err := env.counted(next, n.Prefix+mergeName) // both window joins' results
		if err != nil {
			return nil, err
		}
		bounds := carriesWindows(n)
		lw, err := openStreamWindow(env, ls.Name, n.Left.Source, b.windowKeys(n, ls), b.windowValues(n.Left.Source, ls, bounds), n.KeyTypes(), w, retention, bounds)
		if err != nil {
			return nil, err
		}
		rw, err := openStreamWindow(env, rs.Name, n.Right.Source, b.windowKeys(n, rs), b.windowValues(n.Right.Source, rs, bounds), n.KeyTypes(), w, retention, bounds)
		if err != nil {
			return nil, err
		}
		lw.peer, rw.peer = rw, lw
		lw.cache.share(rw.cache)
		j := joiner{n: n}
		full := n.Type == ast.FullJoin
		size := matchSize(n)
		lp := &streamStreamJoin{joiner: j, side: planner.JoinLeft, this: lw, other: rw, before: w.Before, after: w.After,
			outer: full || n.Type == ast.LeftJoin, otherCols: rw.cols, size: size, bounds: bounds, next: next, vals: newRowValues(next)}
		rp := &streamStreamJoin{joiner: j, side: planner.JoinRight, this: rw, other: lw, before: w.After, after: w.Before,
			outer: full || n.Type == ast.RightJoin, otherCols: lw.cols, size: size, bounds: bounds, next: next, vals: newRowValues(next)}
		var kept Store
		if shared.Name != "" {
			o, err := openOuterStore(env, shared.Name, n, lw, rw)
			if err != nil {
				return nil, err
			}
			lp.shared, rp.shared, kept = o, o, o.store
		}
		clock, err := newJoinClock(env, kept)
		if err != nil {
			return nil, err
		}
		lp.clock, rp.clock, lp.env, rp.env = clock, clock, env, env
		this, err := env.counted(lp, n.Prefix+thisJoinName)
		if err != nil {
			return nil, err
		}
		other, err := env.counted(rp, n.Prefix+otherJoinName)
		if err != nil {
			return nil, err
		}
		return b.joinSources(env, n, t, this, other)
	}
}

// openOuterStore opens a task's shared outer-join store.
func openOuterStore(env *TaskEnv, name string, n *planner.Join, lw, rw *streamWindow) (*outerStore, error) {
	s, err := env.store(name)
	if err != nil {
		return nil, err
	}
	w := n.Within
	return &outerStore{store: s, codec: [2]*streamWindow{lw, rw}, grace: w.Grace, minTime: math.MaxInt64,
		cols:     [2]int{lw.cols, rw.cols},
		lookBack: [2]int64{w.After, w.Before}}, nil
}

// streamJoinDescs describes a stream–stream join's nodes below its steps.
func streamJoinDescs(n *planner.Join, lstore, rstore, shared string, t joinTopics) []*NodeDesc {
	ls, rs := sourceDescs(n, t)
	lstores, rstores := []string{rstore}, []string{lstore}
	if shared != "" {
		lstores, rstores = append(lstores, shared), append(rstores, shared)
	}
	this := &NodeDesc{Kind: "Processor", Name: n.Prefix + thisJoinName, Stores: lstores, Prev: []string{ls.Name}, Next: []string{n.Prefix + mergeName}}
	other := &NodeDesc{Kind: "Processor", Name: n.Prefix + otherJoinName, Stores: rstores, Prev: []string{rs.Name}, Next: []string{n.Prefix + mergeName}}
	ls.Next, rs.Next = []string{this.Name}, []string{other.Name}
	merge := &NodeDesc{Kind: "Processor", Name: n.Prefix + mergeName, Prev: []string{this.Name, other.Name}}
	return []*NodeDesc{ls, rs, this, other, merge}
}

// sourceDescs describes the join's two sources (a re-keyed side's
// repartition topic).
func sourceDescs(n *planner.Join, t joinTopics) (*NodeDesc, *NodeDesc) {
	var out [2]*NodeDesc
	for i, side := range []planner.JoinSide{planner.JoinLeft, planner.JoinRight} {
		in := joinInput(n, side)
		if in.Nested() && !in.Rekeyed() {
			out[i] = t.nested.last()
			continue
		}
		topic := []string{t.left, t.right}[i]
		out[i] = &NodeDesc{Kind: "Source", Name: "Source-" + in.Source.Name, Topic: topic}
		if in.Reformat {
			out[i].Name = n.Prefix + reformatName(side) + "-source"
		}
		if in.Rekeyed() {
			out[i].Name = repartitionNameOf(n, side) + "-source"

		}
	}
	return out[0], out[1]
}
