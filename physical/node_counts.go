package physical

import (
	"fmt"
	"sync/atomic"

	"github.com/sqlstream/sqlstream/sql/types"
)

// NodeCounts counts the records each node of a topology received, over
// every task given it (TaskEnv.Counts): one counter per node, reached
// through a pointer each task takes when it is made, so a record costs an
// atomic add per node and no lookup. A source node counts the raw
// records its task takes from its topic; a processor or sink the rows
// its predecessor passes it. A step is counted by a wrapper in front of
// it (countedOp); the nodes inside a join's head (its sides'
// materializations, the join itself, a foreign-key join's subscription
// processor and internal sinks) take their counters by name when the
// task is made (TaskEnv.counted, TaskEnv.nodeCounter), so every node of
// the described topology has a figure. A node fed by two (a table–table
// join from both materializations, a stream–stream join's merge from
// both window joins) counts what both pass it.
type NodeCounts struct {
	subs [][]nodeCount // by sub-topology, in SubTopology.Nodes order
}

type nodeCount struct {
	name  string
	kind  string
	topic string // a source's
	n     atomic.Int64
}

// NewNodeCounts returns zero counts for t's nodes.
func (t *Topology) NewNodeCounts() *NodeCounts {
	c := &NodeCounts{subs: make([][]nodeCount, len(t.SubTopologies))}
	for i, st := range t.SubTopologies {
		c.subs[i] = make([]nodeCount, len(st.Nodes))
		for j, n := range st.Nodes {
			c.subs[i][j].name, c.subs[i][j].kind, c.subs[i][j].topic = n.Name, n.Kind, n.Topic
		}
	}
	return c
}

// NodeCount is one node's records so far.
type NodeCount struct {
	SubTopology int
	Node        string
	Records     int64
}

// Snapshot returns the nodes' records, by sub-topology and in each
// sub-topology's node order (none for nil counts).
func (c *NodeCounts) Snapshot() []NodeCount {
	var out []NodeCount
	if c == nil {
		return nil
	}
	for i, sub := range c.subs {
		for j := range sub {
			out = append(out, NodeCount{SubTopology: i, Node: sub[j].name, Records: sub[j].n.Load()})
		}
	}
	return out
}

// Written is the records the sink nodes writing topic received (a
// persistent query's output: the rows its sink topic got here), summed
// over its sub-topologies; 0 for nil counts or an empty topic. It reads
// the counters the nodes keep, so the output costs nothing per record.
func (c *NodeCounts) Written(topic string) int64 {
	var n int64
	if c == nil || topic == "" {
		return 0
	}
	for _, sub := range c.subs {
		for j := range sub {
			if sub[j].kind == "Sink" && sub[j].topic == topic {
				n += sub[j].n.Load()
			}
		}
	}
	return n
}

// step is the counter of the i-th step of sub-topology sub.
func (c *NodeCounts) step(sub, i, steps int) *atomic.Int64 {
	nodes := c.subs[sub]
	return &nodes[len(nodes)-steps+i].n
}

// node is the counter of the node named name of sub-topology sub (nil:
// no such node).
func (c *NodeCounts) node(sub int, name string) *atomic.Int64 {
	for j := range c.subs[sub] {
		if n := &c.subs[sub][j]; n.name == name {
			return &n.n
		}
	}
	return nil
}

// nodeCounter is the counter of the node named name of the task's
// sub-topology, taken when the task is made (nil: the task is not
// counted). A name its topology does not describe is a bug of the
// builder, reported, not silently uncounted.
func (e *TaskEnv) nodeCounter(name string) (*atomic.Int64, error) {
	if e.Counts == nil {
		return nil, nil
	}
	if n := e.Counts.node(e.sub, name); n != nil {
		return n, nil
	}
	return nil, fmt.Errorf("physical: sub-topology %d has no node %s to count", e.sub, name)
}

// counted puts the counters of the nodes named before p, in the order a
// row reaches them (a table–table join's side: its materialization, then
// the join); p itself when the task is not counted.
func (e *TaskEnv) counted(p Processor, names ...string) (Processor, error) {
	for i := len(names) - 1; i >= 0; i-- {
		n, err := e.nodeCounter(names[i])
		if err != nil {
			return nil, err
		}
		if n != nil {
			p = &countedOp{n: n, next: p}
		}
	}
	return p, nil
}

// countedRaw puts the counter of the node named name before a raw
// processor (a foreign-key join's subscription processor and response
// join, which read their internal topics' records themselves).
func (e *TaskEnv) countedRaw(p rawProcessor, name string) (rawProcessor, error) {
	n, err := e.nodeCounter(name)
	if n == nil || err != nil {
		return p, err
	}
	return &countedRawOp{n: n, next: p}, nil
}

// sources are sub-topology sub's source counters, by topic.
func (c *NodeCounts) sources(sub int) []sourceCount {
	var out []sourceCount
	for j := range c.subs[sub] {
		if n := &c.subs[sub][j]; n.kind == "Source" {
			out = append(out, sourceCount{topic: n.topic, n: &n.n})
		}
	}
	return out
}

// sourceCount is a source node's counter, found by its topic.
type sourceCount struct {
	topic string
	n     *atomic.Int64
}

// countInput counts r for the source node reading its topic.
func countInput(srcs []sourceCount, r *InRecord) {
	for i := range srcs {
		if srcs[i].topic == r.Topic {
			srcs[i].n.Add(1)
			return
		}
	}
}

// countedOp counts the rows it passes to the node after it.
type countedOp struct {
	n    *atomic.Int64
	next Processor
}

func (c *countedOp) Process(row *types.Row) error {
	c.n.Add(1)
	return c.next.Process(row)
}

// countedRawOp counts the raw records it passes to the node's operator.
type countedRawOp struct {
	n    *atomic.Int64
	next rawProcessor
}

func (c *countedRawOp) ProcessRaw(r *InRecord) error {
	c.n.Add(1)
	return c.next.ProcessRaw(r)
}

// count adds one to n, a node's counter (nil: not counted).
func count(n *atomic.Int64) {
	if n != nil {
		n.Add(1)
	}
}

// ContinueFrom starts c (a new plan's counts, before its tasks run) from
// old's (the plan it upgrades): a node of c counts on from old's node of
// the same sub-topology, name and kind (and topic, for a source), the
// one that plays its part in the plan: node names are their roles
// (Source-<NAME>, Aggregate-Aggregate, Project…), numbered by
// sub-topology. A node with no such match is new in this plan and counts
// from 0; ContinueFrom returns those, as "<sub>/<name>".
func (c *NodeCounts) ContinueFrom(old *NodeCounts) (added []string) {
	if c == nil {
		return nil
	}
	for i := range c.subs {
		for j := range c.subs[i] {
			n := &c.subs[i][j]
			if o := old.match(i, n); o != nil {
				n.n.Store(o.n.Load())
				continue
			}
			added = append(added, fmt.Sprintf("%d/%s", i, n.name))
		}
	}
	return added
}

// match is c's node of sub-topology sub playing n's part (nil: none).
func (c *NodeCounts) match(sub int, n *nodeCount) *nodeCount {
	if c == nil || sub >= len(c.subs) {
		return nil
	}
	for j := range c.subs[sub] {
		if o := &c.subs[sub][j]; o.name == n.name && o.kind == n.kind && o.topic == n.topic {
			return o
		}
	}
	return nil
}
