package planner

import (
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// Node is a logical plan operator. Plans are plain data: the physical
// builder turns them into processors, EXPLAIN prints them.
type Node interface {
	// Schema is the node's output schema (key columns first).
	Schema() *types.Schema
	// Inputs are the nodes this one reads.
	Inputs() []Node
}

// Scan reads a source.
type Scan struct {
	Source *Source
	Alias  string
}

// Filter keeps rows for which Pred is true.
type Filter struct {
	Input Node
	Cond  ast.Expr
	Pred  *expr.Compiled
}

// Projection is one output column of a Project.
type Projection struct {
	Name string
	Expr ast.Expr
	Eval *expr.Compiled
	// Key marks a projection that is (a copy of) an input key column and
	// so becomes an output key column.
	Key bool
	// WindowBound marks WINDOWSTART/WINDOWEND in a transient query over
	// a windowed table: part of the row's key, as ksqlDB shows them.
	WindowBound bool
}

// Project computes the output columns. It never re-keys: key columns of
// the output are input key columns passed through (mapValues-style).
type Project struct {
	Input   Node
	Columns []Projection
	schema  *types.Schema
}

// Sink writes rows to a source's topic. MaterializeOnly sinks write
// nothing: the query only keeps the table in its store (a SOURCE table's
// CST query, which makes it queryable).
type Sink struct {
	Input           Node
	Target          *Source
	MaterializeOnly bool
}

// Schema implements Node.
func (n *Scan) Schema() *types.Schema { return n.Source.Schema }

// Schema implements Node.
func (n *Filter) Schema() *types.Schema { return n.Input.Schema() }

// Schema implements Node.
func (n *Project) Schema() *types.Schema { return n.schema }

// Schema implements Node.
func (n *Sink) Schema() *types.Schema { return n.Input.Schema() }

// Inputs implements Node.
func (n *Scan) Inputs() []Node { return nil }

// Inputs implements Node.
func (n *Filter) Inputs() []Node { return []Node{n.Input} }

// Inputs implements Node.
func (n *Project) Inputs() []Node { return []Node{n.Input} }

// Inputs implements Node.
func (n *Sink) Inputs() []Node { return []Node{n.Input} }

var (
	_ Node = (*Scan)(nil)
	_ Node = (*Filter)(nil)
	_ Node = (*Project)(nil)
	_ Node = (*Sink)(nil)
)

// QueryKind says how a planned query runs.
type QueryKind uint8

const (
	// Persistent queries (CSAS, CTAS, INSERT INTO) run until terminated.
	Persistent QueryKind = iota
	// Push queries stream results to one client (SELECT … EMIT CHANGES).
	Push
	// Pull queries run to completion against current state.
	Pull
)

// Plan is a planned query.
type Plan struct {
	Kind    QueryKind
	Root    Node // a *Sink for persistent queries
	Sources []*Source
	// Sink is the target of a persistent query; for CREATE … AS SELECT it
	// is new and not yet in the catalog.
	Sink  *Source
	Limit int // -1 when absent
	// Windowed is true when the query reads or produces windowed rows.
	Windowed bool
	// Aggregated is true for GROUP BY queries (their result is a table).
	Aggregated bool
	// Window describes the windows of a windowed aggregation's result.
	Window *WindowInfo
	// Join is the query's join, if it reads two sources.
	Join *Join
}

// Filter returns the WHERE filter directly above the plan's scan, if any
// (pull queries use it for key lookups).
func (p *Plan) Filter() (*Filter, bool) {
	n := p.Root
	for {
		in := n.Inputs()
		if len(in) == 0 {
			return nil, false
		}
		if f, ok := n.(*Filter); ok {
			if _, isScan := in[0].(*Scan); isScan {
				return f, true
			}
		}
		n = in[0]
	}
}
