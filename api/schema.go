package api

import "github.com/sqlstream/sqlstream/sql/types"

// Field types of FieldInfo.Type; value columns have none.
const (
	FieldKey    = "KEY"
	FieldHeader = "HEADER"
)

// FieldInfo is one column (or STRUCT field) in DESCRIBE and EXPLAIN output.
type FieldInfo struct {
	Name   string     `json:"name"`
	Schema SchemaInfo `json:"schema"`
	// HeaderKey is the header a HEADER('k') column reads; absent otherwise.
	HeaderKey string `json:"headerKey,omitempty"`
	// Type is KEY or HEADER, absent for value columns and struct fields.
	Type string `json:"type,omitempty"`
}

// SchemaInfo is a SQL type as the REST API describes it: the base type
// name, STRUCT fields, the ARRAY element / MAP value type, and DECIMAL
// precision and scale. Fields and MemberSchema encode as null when unused.
type SchemaInfo struct {
	Type         string         `json:"type"`
	Fields       []FieldInfo    `json:"fields"`
	MemberSchema *SchemaInfo    `json:"memberSchema"`
	Parameters   *DecimalParams `json:"parameters,omitempty"`
}

// DecimalParams are the "parameters" of a DECIMAL SchemaInfo.
type DecimalParams struct {
	Precision int `json:"precision"`
	Scale     int `json:"scale"`
}

// SchemaInfoOf returns the REST description of t.
func SchemaInfoOf(t *types.Type) SchemaInfo {
	s := SchemaInfo{Type: t.Kind.String()}
	switch t.Kind {
	case types.KindDecimal:
		s.Parameters = &DecimalParams{Precision: t.Precision, Scale: t.Scale}
	case types.KindArray, types.KindMap:
		m := SchemaInfoOf(t.Elem)
		s.MemberSchema = &m
	case types.KindStruct:
		s.Fields = make([]FieldInfo, len(t.Fields))
		for i, f := range t.Fields {
			s.Fields[i] = FieldInfo{Name: f.Name, Schema: SchemaInfoOf(f.Type)}
		}
	}
	return s
}

// FieldInfoOf returns the REST description of a source column: key columns
// are marked KEY, header columns HEADER (with their header key).
func FieldInfoOf(c types.Column) FieldInfo {
	f := FieldInfo{Name: c.Name, Schema: SchemaInfoOf(c.Type)}
	switch c.NS {
	case types.KeyNS:
		f.Type = FieldKey
	case types.HeaderNS:
		f.Type, f.HeaderKey = FieldHeader, c.HeaderKey
	}
	return f
}

// FieldInfosOf describes every column of s, in order.
func FieldInfosOf(s types.Schema) []FieldInfo {
	out := make([]FieldInfo, len(s.Columns))
	for i, c := range s.Columns {
		out[i] = FieldInfoOf(c)
	}
	return out
}
