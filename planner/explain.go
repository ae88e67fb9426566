package planner

import (
	"fmt"
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
)

// Explain renders the logical plan as an indented tree, one node per
// line, root first — the "executionPlan" of EXPLAIN, pinned by golden
// tests:
//
//	> [ SINK ] | Schema: `K` STRING KEY, `NAME` STRING | Topic: S1
//	    > [ PROJECT ] | Schema: … | Columns: K, NAME
//	        > [ FILTER ] | Schema: … | Condition: (ID > 100)
//	            > [ SOURCE ] | Schema: … | Topic: test_topic | Pruned: EXTRA
//
// A source's Pruned lists the value columns the query never reads, which
// it does not decode (UnreadColumns).
func Explain(root Node) string {
	var b strings.Builder
	scan, unread := UnreadColumns(root)
	explainNode(&b, root, 0, func(n Node) string {
		if s, ok := n.(*Scan); ok && s == scan && len(unread) > 0 {
			return " | Pruned: " + strings.Join(unread, ", ")
		}
		return ""
	})
	return b.String()
}

func explainNode(b *strings.Builder, n Node, depth int, extra func(Node) string) {
	b.WriteString(strings.Repeat("    ", depth))
	fmt.Fprintf(b, "> [ %s ] | Schema: %s", nodeKind(n), n.Schema().String(true))
	if d := nodeDetail(n); d != "" {
		b.WriteString(" | ")
		b.WriteString(d)
	}
	b.WriteString(extra(n))
	b.WriteString("\n")
	for _, in := range n.Inputs() {
		explainNode(b, in, depth+1, extra)
	}
}

func nodeKind(n Node) string {
	switch n.(type) {
	case *Scan:
		return "SOURCE"
	case *Filter:
		return "FILTER"
	case *Project:
		return "PROJECT"
	case *Sink:
		return "SINK"
	case *PartitionBy:
		return "PARTITION BY"
	case *Aggregate:
		return "AGGREGATE"
	case *FlatMap:
		return "FLAT_MAP"
	case *Join:
		return "JOIN"
	}
	return fmt.Sprintf("%T", n)
}

func nodeDetail(n Node) string {
	switch n := n.(type) {
	case *Scan:
		if n.Source.Global {
			return "Topic: " + n.Source.Topic + " | Global (every task reads all partitions)"
		}
		return "Topic: " + n.Source.Topic
	case *Filter:
		return "Condition: " + ast.FormatExpr(n.Cond)
	case *Project:
		cols := make([]string, len(n.Columns))
		for i, c := range n.Columns {
			cols[i] = ast.FormatExpr(c.Expr) + " AS " + c.Name
		}
		return "Columns: " + strings.Join(cols, ", ")
	case *Sink:
		return "Topic: " + n.Target.Topic
	case *PartitionBy:
		keys := make([]string, len(n.Exprs))
		for i, e := range n.Exprs {
			keys[i] = ast.FormatExpr(e)
		}
		return "Key: " + strings.Join(keys, ", ")
	case *Aggregate:
		return n.String()
	case *FlatMap:
		return n.String()
	case *Join:
		return n.String()
	}
	return ""
}
