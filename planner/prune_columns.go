package planner

import (
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/types"
)

// UnreadColumns returns the plan's scan and the value columns of its
// source that no step of the query reads (projection, WHERE, PARTITION
// BY, table functions, GROUP BY keys and aggregate arguments, the
// TIMESTAMP column), in schema order: the source need not decode them
// (the decoders still validate them, so a record ksqlDB rejects is still
// rejected). It returns nil where decoding only some columns is not safe
// or not known to be: a join (either side), a table (its rows are kept
// whole: an aggregation's input-row store, pull queries of its store), a
// global table, or a step this function does not know.
func UnreadColumns(root Node) (*Scan, []string) {
	chain, scan := scanChain(root)
	if scan == nil || scan.Source.Kind != ast.Stream || scan.Source.Global {
		return nil, nil
	}
	read := allColumns(root.Schema())
	for _, n := range chain {
		var ok bool
		if read, ok = inputReads(n, read); !ok {
			return nil, nil
		}
	}
	src := scan.Source
	if i := src.Schema.Find(src.TimestampColumn); src.TimestampColumn != "" && i >= 0 {
		read[i] = true
	}
	var unread []string
	for i, c := range src.Schema.Columns {
		if c.NS == types.ValueNS && !read[i] {
			unread = append(unread, c.Name)
		}
	}
	return scan, unread
}

// scanChain returns the nodes from root down to the scan (root first,
// the scan excluded), or a nil scan when the plan's bottom is not one.
func scanChain(root Node) ([]Node, *Scan) {
	var chain []Node
	for n := root; ; {
		if s, ok := n.(*Scan); ok {
			return chain, s
		}
		in := n.Inputs()
		if len(in) != 1 {
			return nil, nil
		}
		chain = append(chain, n)
		n = in[0]
	}
}

// allColumns marks every column of s read.
func allColumns(s *types.Schema) []bool {
	read := make([]bool, len(s.Columns))
	for i := range read {
		read[i] = true
	}
	return read
}

// inputReads maps the columns read of n's output to the columns n reads
// of its input: its expressions' columns and those it passes on that are
// read above it. ok is false for a node whose reads are not known.
func inputReads(n Node, out []bool) (in []bool, ok bool) {
	switch n := n.(type) {
	case *Sink:
		return allColumns(n.Input.Schema()), true
	case *Project:
		in = make([]bool, len(n.Input.Schema().Columns))
		for _, c := range n.Columns {
			if c.Eval != nil {
				mark(in, c.Eval.Columns())
			}
		}
		return in, true
	case *Filter:
		in = append([]bool(nil), out...)
		mark(in, n.Pred.Columns())
		return in, true
	case *FlatMap:
		in = append([]bool(nil), out[:len(n.Input.Schema().Columns)]...)
		for _, c := range n.Calls {
			mark(in, c.Fn.Columns())
		}
		return in, true
	case *PartitionBy:
		return partitionReads(n, out), true
	case *Aggregate:
		return aggregateReads(n), !n.OnTable
	}
	return nil, false
}

// partitionReads: the key expressions' columns, and the input column of
// each value column read above (partitionByOp copies them by name).
func partitionReads(n *PartitionBy, out []bool) []bool {
	schema := n.Input.Schema()
	in := make([]bool, len(schema.Columns))
	for _, ev := range n.Evals {
		if ev != nil {
			mark(in, ev.Columns())
		}
	}
	for i, c := range n.Schema().Columns {
		if c.NS != types.KeyNS && out[i] {
			if j := schema.Find(c.Name); j >= 0 {
				in[j] = true
			}
		}
	}
	return in
}

// aggregateReads: the group keys' and the aggregate arguments' columns.
func aggregateReads(n *Aggregate) []bool {
	in := make([]bool, len(n.Input.Schema().Columns))
	for _, k := range n.Keys {
		mark(in, k.Columns())
	}
	for _, c := range n.Calls {
		for _, a := range c.Args {
			mark(in, a.Columns())
		}
	}
	return in
}

func mark(read []bool, cols []int) {
	for _, i := range cols {
		read[i] = true
	}
}
