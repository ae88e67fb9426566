package physical

import (
	"fmt"
	"strings"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
)

// Topology is the physical form of a query: sub-topologies connected by
// topics. A stateless query has one sub-topology; re-keying adds a
// repartition topic and a second one.
type Topology struct {
	SubTopologies []*SubTopology
	// SinkTopic is the output topic of a persistent query ("" for
	// transient queries).
	SinkTopic string
}

// SubTopology is a connected group of processors fed by source topics.
// The runtime creates one task per partition of its source topics.
type SubTopology struct {
	ID     int
	Topics []string
	Nodes  []*NodeDesc
	build  func(env *TaskEnv) (rawProcessor, error)
}

// NodeDesc describes one node for EXPLAIN and topology golden tests.
type NodeDesc struct {
	Kind  string // Source, Processor, Sink
	Name  string
	Topic string // for sources and sinks
	Next  []string
	Prev  []string
}

// rawProcessor handles raw input records (the head of a sub-topology).
type rawProcessor interface {
	ProcessRaw(r *InRecord) error
}

// TimestampParser parses a string TIMESTAMP column with a
// TIMESTAMP_FORMAT pattern into epoch millis.
type TimestampParser func(value, pattern string) (int64, error)

// Build turns a logical plan into a topology. parseTS parses string
// timestamp columns (the runtime passes the PARSE_TIMESTAMP function).
func Build(plan *planner.Plan, parseTS TimestampParser) (*Topology, error) {
	b := &builder{parseTS: parseTS}
	chain, scan, err := b.linearize(plan.Root)
	if err != nil {
		return nil, err
	}
	sub := &SubTopology{ID: 0, Topics: []string{scan.Source.Topic}}
	sub.Nodes = describeChain(scan, chain)
	sub.build = func(env *TaskEnv) (rawProcessor, error) { return b.instantiate(env, scan, chain) }
	t := &Topology{SubTopologies: []*SubTopology{sub}}
	if s, ok := plan.Root.(*planner.Sink); ok {
		t.SinkTopic = s.Target.Topic
	}
	return t, nil
}

type builder struct {
	parseTS TimestampParser
}

// linearize walks a single-input plan from the root down to its scan and
// returns the nodes above the scan in data-flow order.
func (b *builder) linearize(root planner.Node) ([]planner.Node, *planner.Scan, error) {
	var chain []planner.Node
	n := root
	for {
		if s, ok := n.(*planner.Scan); ok {
			for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
				chain[i], chain[j] = chain[j], chain[i]
			}
			return chain, s, nil
		}
		in := n.Inputs()
		if len(in) != 1 {
			return nil, nil, fmt.Errorf("physical: %T with %d inputs is not supported", n, len(in))
		}
		chain = append(chain, n)
		n = in[0]
	}
}

// instantiate creates the processors of one task, last first.
func (b *builder) instantiate(env *TaskEnv, scan *planner.Scan, chain []planner.Node) (rawProcessor, error) {
	var next Processor
	if len(chain) == 0 || !isSink(chain[len(chain)-1]) {
		next = &collectOp{env: env}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		p, err := b.processor(env, chain[i], next, scan.Source.Kind == ast.Table)
		if err != nil {
			return nil, err
		}
		next = p
	}
	src := scan.Source
	parse := func(v any) (int64, error) {
		s, ok := v.(string)
		if !ok || b.parseTS == nil {
			return 0, fmt.Errorf("cannot use %v (%T) as a timestamp", v, v)
		}
		return b.parseTS(s, src.TimestampFormat)
	}
	return newSourceOp(env, src, next, parse)
}

func isSink(n planner.Node) bool {
	_, ok := n.(*planner.Sink)
	return ok
}

func (b *builder) processor(env *TaskEnv, n planner.Node, next Processor, table bool) (Processor, error) {
	switch n := n.(type) {
	case *planner.Filter:
		return &filterOp{env: env, n: n, table: table, next: next}, nil
	case *planner.Project:
		return newProjectOp(env, n, next), nil
	case *planner.Sink:
		return newSinkOp(env, n.Target)
	case *planner.PartitionBy:
		return &partitionByOp{env: env, n: n, next: next}, nil
	}
	return nil, fmt.Errorf("physical: no processor for %T", n)
}

// nodeName returns the stable, explicit name of a plan node's processor.
func nodeName(n planner.Node) string {
	switch n := n.(type) {
	case *planner.Filter:
		return "WhereFilter"
	case *planner.Project:
		return "Project"
	case *planner.Sink:
		return "Sink-" + n.Target.Name
	case *planner.PartitionBy:
		return "PartitionBy-SelectKey"
	}
	return fmt.Sprintf("%T", n)
}

func describeChain(scan *planner.Scan, chain []planner.Node) []*NodeDesc {
	names := []string{"Source-" + scan.Source.Name}
	for _, n := range chain {
		names = append(names, nodeName(n))
	}
	if len(chain) == 0 || !isSink(chain[len(chain)-1]) {
		names = append(names, "Collect")
	}
	var out []*NodeDesc
	for i, name := range names {
		d := &NodeDesc{Kind: "Processor", Name: name}
		switch {
		case i == 0:
			d.Kind, d.Topic = "Source", scan.Source.Topic
		case strings.HasPrefix(name, "Sink-"):
			d.Kind, d.Topic = "Sink", chain[len(chain)-1].(*planner.Sink).Target.Topic
		}
		if i > 0 {
			d.Prev = []string{names[i-1]}
		}
		if i < len(names)-1 {
			d.Next = []string{names[i+1]}
		}
		out = append(out, d)
	}
	return out
}

// Describe renders the topology in Kafka Streams' TopologyDescription
// format; EXPLAIN prints it and golden tests pin it.
func (t *Topology) Describe() string {
	var b strings.Builder
	b.WriteString("Topologies:\n")
	for _, s := range t.SubTopologies {
		fmt.Fprintf(&b, "   Sub-topology: %d\n", s.ID)
		for _, n := range s.Nodes {
			switch n.Kind {
			case "Source":
				fmt.Fprintf(&b, "    Source: %s (topics: [%s])\n", n.Name, n.Topic)
			case "Sink":
				fmt.Fprintf(&b, "    Sink: %s (topic: %s)\n", n.Name, n.Topic)
			default:
				fmt.Fprintf(&b, "    Processor: %s (stores: [])\n", n.Name)
			}
			if len(n.Next) > 0 {
				fmt.Fprintf(&b, "      --> %s\n", strings.Join(n.Next, ", "))
			}
			if len(n.Prev) > 0 {
				fmt.Fprintf(&b, "      <-- %s\n", strings.Join(n.Prev, ", "))
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}
