package planner

import (
	"sort"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// Source is a stream or table registered in the catalog: its schema, the
// topic behind it and how its records are serialized.
type Source struct {
	// Inferred says CREATE took some columns from the schema registry
	// (InferredStatement writes them into the recorded statement).
	Inferred        bool
	Name            string
	Kind            ast.SourceKind
	Schema          *types.Schema
	Topic           string
	KeyFormat       format.Spec
	ValueFormat     format.Spec
	TimestampColumn string // "" when ROWTIME is the record timestamp
	TimestampFormat string // for a VARCHAR TIMESTAMP column
	Window          *WindowInfo
	Partitions      int32
	Replicas        int16
	// HistoryRetention (ms) is how far back an as-of join can read a
	// table's versions (HISTORY_RETENTION); 0: DefaultHistoryRetention.
	HistoryRetention int64
	// ReadOnly is set for CREATE SOURCE STREAM|TABLE.
	ReadOnly bool
	// QueryCreated is set for the target of CREATE … AS SELECT (ksqlDB's
	// isCasTarget): ALTER may not add columns to it.
	QueryCreated bool
	// Global is set for CREATE GLOBAL TABLE: a join reads its whole topic
	// into one store per query (Kafka Streams' GlobalKTable).
	Global bool
	// SQL is the statement that created the source.
	SQL string
	// origin, on a join side's copy with record columns
	// (withRecordColumns), is the catalog's source.
	origin *Source
}

// WindowInfo describes a source whose keys are windowed.
type WindowInfo struct {
	Kind ast.WindowKind
	Size int64 // ms; 0 for session windows
}

// Windowed reports whether the source's keys carry a window.
func (s *Source) Windowed() bool { return s.Window != nil }

// Catalog holds the sources known to the engine. It is not safe for
// concurrent use; the engine serializes statement execution.
type Catalog struct {
	sources map[string]*Source
	types   TypeRegistry
}

// NewCatalog returns an empty catalog.
func NewCatalog() *Catalog { return &Catalog{sources: map[string]*Source{}} }

// Get returns the source named name.
func (c *Catalog) Get(name string) (*Source, bool) {
	s, ok := c.sources[name]
	return s, ok
}

// Put adds or replaces a source.
func (c *Catalog) Put(s *Source) { c.sources[s.Name] = s }

// Delete removes the source named name.
func (c *Catalog) Delete(name string) { delete(c.sources, name) }

// List returns all sources sorted by name.
func (c *Catalog) List() []*Source {
	out := make([]*Source, 0, len(c.sources))
	for _, s := range c.sources {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ByTopic returns the sources whose topic is topic.
func (c *Catalog) ByTopic(topic string) []*Source {
	var out []*Source
	for _, s := range c.List() {
		if s.Topic == topic {
			out = append(out, s)
		}
	}
	return out
}
