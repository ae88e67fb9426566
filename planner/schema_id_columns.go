package planner

import (
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// checkSchemaIDColumns refuses a CREATE … AS SELECT whose KEY_SCHEMA_ID /
// VALUE_SCHEMA_ID schema cannot carry the query's columns, as ksqlDB's
// DefaultSchemaInjector: each key (value) column of the query must be the
// schema's column at the same position, with the same name and type; the
// schema may have more columns after them (written with their defaults).
// A single column the schema holds unwrapped (ksqlDB infers it as ROWKEY
// or ROWVAL) is compared by type only.
func (p *Planner) checkSchemaIDColumns(sink *Source, pos ast.Pos) error {
	for _, side := range []struct {
		key  bool
		cols []types.Column
	}{{true, sink.Schema.Keys()}, {false, valueColumns(sink.Schema)}} {
		spec := sink.ValueFormat
		if side.key {
			spec = sink.KeyFormat
		}
		if spec.SchemaID == 0 || len(side.cols) == 0 {
			continue
		}
		inferred, err := p.inferSide(sink, spec, side.key, pos)
		if err != nil {
			return err
		}
		inferred = asSinkColumns(inferred, side.cols)
		if changed := changedColumns(side.cols, inferred); len(changed) > 0 {
			which := "value"
			if side.key {
				which = "key"
			}
			return sqlerr.New(sqlerr.Semantic, pos, "The following %s columns are changed, missing or reordered: %s. Schema from schema registry is %s",
				which, changed, columnList(inferred))
		}
	}
	return nil
}

// asSinkColumns puts the schema's inferred columns in the sink columns'
// namespace; a single unwrapped column (ROWKEY, ROWVAL) takes the sink's
// column's name.
func asSinkColumns(inferred, cols []types.Column) []types.Column {
	out := make([]types.Column, len(inferred))
	for i, c := range inferred {
		c.NS = cols[0].NS
		if len(inferred) == 1 && (c.Name == "ROWKEY" || c.Name == "ROWVAL") {
			c.Name = cols[0].Name
		}
		out[i] = c
	}
	return out
}
