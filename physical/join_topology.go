package physical

import (
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
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
// sub-topology of its own into `Join-repartition`, which the join's
// sub-topology reads instead of the stream's topic. A stream–stream join
// will plug in here too: both sides in window stores (and re-keyed into
// `Join-left-repartition` / `Join-right-repartition`).
func (b *builder) startJoin(n *planner.Join) {
	leftTopic := n.Left.Source.Topic
	if n.Left.Rekey != nil {
		leftTopic = b.rekeyLeft(n)
	}
	b.table = n.Shape == planner.TableTable
	seg := &segment{topics: []string{leftTopic, n.Right.Source.Topic}}
	b.cur = seg
	var stores [2]StoreSpec
	if n.Shape == planner.TableTable {
		stores[0] = b.store(joinStoreName(planner.JoinLeft))
	}
	stores[1] = b.store(joinStoreName(planner.JoinRight))
	seg.joinDescs = joinDescs(n, stores, leftTopic)
	seg.head = func(env *TaskEnv, next Processor) (rawProcessor, error) {
		return b.newJoinHead(env, n, leftTopic, next)
	}
}

// newJoinHead makes a task's join operators and the two source operators
// feeding them.
func (b *builder) newJoinHead(env *TaskEnv, n *planner.Join, leftTopic string, next Processor) (rawProcessor, error) {
	right, err := openSideStore(env, joinStoreName(planner.JoinRight), n.Right.Source.Schema)
	if err != nil {
		return nil, err
	}
	var lp, rp Processor
	j := joiner{n: n}
	if n.Shape == planner.TableTable {
		left, err := openSideStore(env, joinStoreName(planner.JoinLeft), n.Left.Source.Schema)
		if err != nil {
			return nil, err
		}
		lp = &tableTableJoin{joiner: j, side: planner.JoinLeft, this: left, other: right, next: next}
		rp = &tableTableJoin{joiner: j, side: planner.JoinRight, this: right, other: left, next: next}
	} else {
		lp = &streamTableJoin{joiner: j, table: right, left: n.Type == ast.LeftJoin, rekeyed: n.Left.Rekey != nil, next: next}
		rp = &tableSide{table: right}
	}
	head := &joinHead{byTopic: map[string]rawProcessor{}}
	if n.Left.Rekey != nil {
		src, err := newJoinRepartitionSource(env, n, lp)
		if err != nil {
			return nil, err
		}
		head.byTopic[leftTopic] = src
	} else if err := b.addSourceOp(env, head, n.Left.Source, lp); err != nil {
		return nil, err
	}
	return head, b.addSourceOp(env, head, n.Right.Source, rp)
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
func joinDescs(n *planner.Join, stores [2]StoreSpec, leftTopic string) []*NodeDesc {
	ls := &NodeDesc{Kind: "Source", Name: "Source-" + n.Left.Source.Name, Topic: leftTopic}
	if n.Left.Rekey != nil {
		ls.Name = joinRepartitionName + "-source"
	}
	rs := &NodeDesc{Kind: "Source", Name: "Source-" + n.Right.Source.Name, Topic: n.Right.Source.Topic}
	join := &NodeDesc{Kind: "Processor", Name: "Join"}
	rm := &NodeDesc{Kind: "Processor", Name: "Join-Right-Materialize", Stores: []string{stores[1].Name}, Prev: []string{rs.Name}}
	rs.Next = []string{rm.Name}
	if n.Shape != planner.TableTable {
		ls.Next, join.Prev = []string{join.Name}, []string{ls.Name}
		join.Stores = []string{stores[1].Name}
		return []*NodeDesc{ls, rs, rm, join}
	}
	lm := &NodeDesc{Kind: "Processor", Name: "Join-Left-Materialize", Stores: []string{stores[0].Name}, Prev: []string{ls.Name}, Next: []string{join.Name}}
	ls.Next = []string{lm.Name}
	rm.Next = []string{join.Name}
	join.Prev = []string{lm.Name, rm.Name}
	join.Stores = []string{stores[0].Name, stores[1].Name}
	return []*NodeDesc{ls, rs, lm, rm, join}
}
