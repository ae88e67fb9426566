package types

import "strings"

// Namespace says where a column lives in a Kafka record.
type Namespace uint8

const (
	// ValueNS columns are serialized in the record value.
	ValueNS Namespace = iota
	// KeyNS columns are serialized in the record key.
	KeyNS
	// HeaderNS columns are read from record headers (all headers, or the
	// one named by Column.HeaderKey).
	HeaderNS
	// RecordNS columns are read from the record's metadata: a join side
	// that carries its source's ROWPARTITION and ROWOFFSET has them as
	// columns so called, which its stores and repartition topics keep.
	RecordNS
)

// Column is one named, typed column of a source or of an operator's output.
type Column struct {
	Name      string
	Type      *Type
	NS        Namespace
	HeaderKey string // HEADER('k'); empty with NS==HeaderNS means HEADERS
}

// Schema is ksqlDB's logical schema: key columns first, then value (and
// header) columns, in declaration order. Pseudo columns (ROWTIME,
// ROWPARTITION, ROWOFFSET, WINDOWSTART, WINDOWEND) are not part of it; they
// come from the record's metadata.
type Schema struct {
	Columns []Column
}

// Find returns the index of the column named name (exact match), or -1.
func (s *Schema) Find(name string) int {
	for i, c := range s.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// Keys returns the key columns in order.
func (s *Schema) Keys() []Column { return s.filter(KeyNS) }

// Values returns the non-key columns (value and header columns) in order.
func (s *Schema) Values() []Column {
	out := make([]Column, 0, len(s.Columns))
	for _, c := range s.Columns {
		if c.NS != KeyNS {
			out = append(out, c)
		}
	}
	return out
}

func (s *Schema) filter(ns Namespace) []Column {
	var out []Column
	for _, c := range s.Columns {
		if c.NS == ns {
			out = append(out, c)
		}
	}
	return out
}

// NumKeys returns how many key columns the schema has.
func (s *Schema) NumKeys() int { return len(s.Keys()) }

// String renders the schema as ksqlDB's LogicalSchema string used in
// /query headers: "`ID` STRING KEY, `COUNT` BIGINT". Key markers are
// printed only when withKeys is true (pull queries print them, push queries
// do not).
func (s *Schema) String(withKeys bool) string {
	var b strings.Builder
	for i, c := range s.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("`")
		b.WriteString(c.Name)
		b.WriteString("` ")
		b.WriteString(c.Type.String())
		if withKeys && c.NS == KeyNS {
			b.WriteString(" KEY")
		}
	}
	return b.String()
}
