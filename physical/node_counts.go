package physical

import (
	"sync/atomic"

	"github.com/sqlstream/sqlstream/sql/types"
)

// NodeCounts counts the records each node of a topology received, over
// every task given it (TaskEnv.Counts): one counter per node, reached
// through a pointer each task takes when it is made, so a record costs an
// atomic add per node and no lookup. A source node counts the raw
// records its task takes from its topic; a processor or sink the rows
// its predecessor passes it. The nodes inside a join's head (its sides'
// materializations and the join itself) are not counted; the first node
// after the join counts what it emits.
type NodeCounts struct {
	subs [][]nodeCount // by sub-topology, in SubTopology.Nodes order
}

type nodeCount struct {
	name    string
	kind    string
	topic   string // a source's
	counted bool
	n       atomic.Int64
}

// NewNodeCounts returns zero counts for t's nodes.
func (t *Topology) NewNodeCounts() *NodeCounts {
	c := &NodeCounts{subs: make([][]nodeCount, len(t.SubTopologies))}
	for i, st := range t.SubTopologies {
		c.subs[i] = make([]nodeCount, len(st.Nodes))
		for j, n := range st.Nodes {
			c.subs[i][j].name, c.subs[i][j].kind, c.subs[i][j].topic = n.Name, n.Kind, n.Topic
			c.subs[i][j].counted = n.Kind == "Source" || j >= len(st.Nodes)-st.steps
		}
	}
	return c
}

// NodeCount is one counted node's records so far.
type NodeCount struct {
	SubTopology int
	Node        string
	Records     int64
}

// Snapshot returns the counted nodes' records, by sub-topology and in
// each sub-topology's node order (none for nil counts).
func (c *NodeCounts) Snapshot() []NodeCount {
	var out []NodeCount
	if c == nil {
		return nil
	}
	for i, sub := range c.subs {
		for j := range sub {
			if sub[j].counted {
				out = append(out, NodeCount{SubTopology: i, Node: sub[j].name, Records: sub[j].n.Load()})
			}
		}
	}
	return out
}

// step is the counter of the i-th step of sub-topology sub.
func (c *NodeCounts) step(sub, i, steps int) *atomic.Int64 {
	nodes := c.subs[sub]
	return &nodes[len(nodes)-steps+i].n
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
