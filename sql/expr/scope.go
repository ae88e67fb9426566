package expr

import (
	"fmt"

	"github.com/sqlstream/sqlstream/sql/types"
)

// Pseudo names a pseudo column read from the row's record metadata.
type Pseudo uint8

// Pseudo columns. NotPseudo marks an ordinary column of Row.Values.
const (
	NotPseudo Pseudo = iota
	RowTime
	RowPartition
	RowOffset
	WindowStart
	WindowEnd
)

// Ref is what a column name resolves to.
type Ref struct {
	Index  int // position in types.Row.Values (ordinary columns)
	Pseudo Pseudo
	Type   *types.Type
}

// Scope resolves column references. source is the qualifier as written
// ("" when unqualified), name the column name; both are case-normalized.
// An error is returned as-is when it is a *sqlerr.Error (its position is
// filled in), otherwise it becomes an Unknown error at the reference.
type Scope interface {
	Resolve(source, name string) (Ref, error)
}

// PseudoRef returns the pseudo column called name, if any; WINDOWSTART
// and WINDOWEND only when windowed.
func PseudoRef(name string, windowed bool) (Ref, bool) {
	switch name {
	case "ROWTIME":
		return Ref{Pseudo: RowTime, Type: types.BigintType}, true
	case "ROWPARTITION":
		return Ref{Pseudo: RowPartition, Type: types.IntegerType}, true
	case "ROWOFFSET":
		return Ref{Pseudo: RowOffset, Type: types.BigintType}, true
	case "WINDOWSTART":
		return Ref{Pseudo: WindowStart, Type: types.BigintType}, windowed
	case "WINDOWEND":
		return Ref{Pseudo: WindowEnd, Type: types.BigintType}, windowed
	}
	return Ref{}, false
}

// schemaScope is the scope of a single input: its columns, optionally
// qualified by any of the source's names or aliases, plus pseudo columns.
type schemaScope struct {
	schema   *types.Schema
	aliases  []string
	windowed bool
}

// SchemaScope returns the scope of one input with schema s. Columns may be
// qualified by any name in aliases (the source name and its alias);
// WINDOWSTART and WINDOWEND resolve only when windowed.
func SchemaScope(s *types.Schema, aliases []string, windowed bool) Scope {
	return &schemaScope{schema: s, aliases: aliases, windowed: windowed}
}

func (s *schemaScope) Resolve(source, name string) (Ref, error) {
	if source != "" && !s.knows(source) {
		return Ref{}, fmt.Errorf("unknown source '%s' in column reference '%s.%s'", source, source, name)
	}
	if i := s.schema.Find(name); i >= 0 {
		return Ref{Index: i, Type: s.schema.Columns[i].Type}, nil
	}
	if r, ok := PseudoRef(name, s.windowed); ok {
		return r, nil
	}
	if source != "" {
		return Ref{}, fmt.Errorf("column '%s.%s' cannot be resolved", source, name)
	}
	return Ref{}, fmt.Errorf("column '%s' cannot be resolved", name)
}

func (s *schemaScope) knows(source string) bool {
	for _, a := range s.aliases {
		if a == source {
			return true
		}
	}
	return false
}
