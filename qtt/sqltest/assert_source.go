package sqltest

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/qtt"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// assertSource runs ASSERT STREAM|TABLE: the catalog's source must be
// the one the CREATE of the same text would make, property by property
// in the order of ksqlDB's AssertExecutor (its messages too).
func (r *runner) assertSource(s step) *stepError {
	cs, serr := parseAssert[*ast.CreateSource](s)
	if serr != nil {
		return serr
	}
	want, err := planner.New(planner.NewCatalog(), r.reg, planner.Defaults{SchemaRegistry: noRegistry{}}).CreateSource(cs)
	if err != nil {
		return &stepError{kind: kindStatement, err: err, detail: qtt.StatementDetail(s.text, err)[1:]}
	}
	got, serr := r.source(cs.Name)
	if serr != nil {
		return serr
	}
	for _, p := range sourceProperties {
		if e, a := p.expected(want), p.actual(got); e != a {
			return fail(kindSource, "Expected %s does not match actual for source %s.\n\tExpected: %s\n\tActual: %s", p.name, got.Name, e, a)
		}
	}
	return nil
}

// sourceProperty is one property ASSERT STREAM|TABLE compares, printed.
type sourceProperty struct {
	name     string
	expected func(*planner.Source) string
	actual   func(*qtt.SourceInfo) string
}

// sourceProperties are ksqlDB's MUST_MATCH list, in its order.
var sourceProperties = []sourceProperty{
	{"schema", func(s *planner.Source) string { return schemaText(s.Schema) }, func(s *qtt.SourceInfo) string { return schemaText(s.Schema) }},
	{"type", func(s *planner.Source) string { return s.Kind.String() }, func(s *qtt.SourceInfo) string { return s.Kind }},
	{"kafka topic", func(s *planner.Source) string { return s.Topic }, func(s *qtt.SourceInfo) string { return s.Topic }},
	{"key format", func(s *planner.Source) string { return s.KeyFormat.Name }, func(s *qtt.SourceInfo) string { return s.KeyFormat.Name }},
	{"key format properties", func(s *planner.Source) string { return formatProps(s.KeyFormat) }, func(s *qtt.SourceInfo) string { return formatProps(s.KeyFormat) }},
	{"value format", func(s *planner.Source) string { return s.ValueFormat.Name }, func(s *qtt.SourceInfo) string { return s.ValueFormat.Name }},
	{"value format properties", func(s *planner.Source) string { return formatProps(s.ValueFormat) }, func(s *qtt.SourceInfo) string { return formatProps(s.ValueFormat) }},
	{"value schema id", func(s *planner.Source) string { return schemaID(s.ValueFormat) }, func(s *qtt.SourceInfo) string { return schemaID(s.ValueFormat) }},
	{"key schema id", func(s *planner.Source) string { return schemaID(s.KeyFormat) }, func(s *qtt.SourceInfo) string { return schemaID(s.KeyFormat) }},
	{"value serde features", func(s *planner.Source) string { return features(s.ValueFormat) }, func(s *qtt.SourceInfo) string { return features(s.ValueFormat) }},
	{"timestamp column", func(s *planner.Source) string { return orEmpty(s.TimestampColumn) }, func(s *qtt.SourceInfo) string { return orEmpty(s.TimestampColumn) }},
	{"timestamp format", func(s *planner.Source) string { return orEmpty(s.TimestampFormat) }, func(s *qtt.SourceInfo) string { return orEmpty(s.TimestampFormat) }},
}

// schemaText prints columns with their namespaces: `ID` INTEGER KEY, ….
func schemaText(s *types.Schema) string {
	out := ""
	for i, c := range s.Columns {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("`%s` %s", c.Name, c.Type)
		switch {
		case c.NS == types.KeyNS:
			out += " KEY"
		case c.NS == types.HeaderNS && c.HeaderKey != "":
			out += fmt.Sprintf(" HEADER('%s')", c.HeaderKey)
		case c.NS == types.HeaderNS:
			out += " HEADERS"
		}
	}
	return out
}

// formatProps prints a format's properties as ksqlDB prints its
// FormatInfo's map: {delimiter=|, fullSchemaName=…}.
func formatProps(f format.Spec) string {
	var props []string
	if f.Delimiter != 0 {
		props = append(props, "delimiter="+string(f.Delimiter))
	}
	if f.FullName != "" {
		props = append(props, "fullSchemaName="+f.FullName)
	}
	if f.NullableRepresentation != "" {
		props = append(props, "nullableRepresentation="+f.NullableRepresentation)
	}
	return "{" + strings.Join(props, ", ") + "}"
}

func schemaID(f format.Spec) string {
	if f.SchemaID == 0 {
		return "null"
	}
	return fmt.Sprint(f.SchemaID)
}

// features prints the value serde features: WRAP_SINGLE_VALUE as set.
func features(f format.Spec) string {
	switch {
	case f.WrapSingle == nil:
		return "[]"
	case *f.WrapSingle:
		return "[WRAP_SINGLE_VALUES]"
	}
	return "[UNWRAP_SINGLE_VALUES]"
}

func orEmpty(s string) string {
	if s == "" {
		return "Optional.empty"
	}
	return "Optional[" + s + "]"
}

// noRegistry is the schema registry an ASSERT's CREATE is planned with:
// its columns are given, so no schema is ever looked up or registered,
// and one that is would be a mistake worth an error.
type noRegistry struct{}

var _ format.SchemaRegistry = noRegistry{}

var errNoRegistry = errors.New("ASSERT STREAM|TABLE reads no schemas: its columns are given")

func (noRegistry) SchemaByID(context.Context, int) (format.RegisteredSchema, error) {
	return format.RegisteredSchema{}, errNoRegistry
}

func (noRegistry) Latest(context.Context, string) (format.RegisteredSchema, error) {
	return format.RegisteredSchema{}, errNoRegistry
}

func (noRegistry) Register(context.Context, string, format.Schema) (format.RegisteredSchema, error) {
	return format.RegisteredSchema{}, errNoRegistry
}

func (noRegistry) DeleteSubject(context.Context, string, bool) error { return errNoRegistry }
