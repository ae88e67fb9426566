package planner

import (
	"strconv"
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// withProps is a validated WITH (…) clause.
type withProps struct {
	props ast.Properties
}

// createProps lists the WITH properties of CREATE STREAM|TABLE and
// CREATE … AS SELECT. QUERY_ID is not one: ksqlDB takes it only in
// INSERT INTO's WITH (its InsertIntoConfigs; CreateAsSelect has no query
// id), so a CREATE … AS SELECT naming one is refused as it is there.
var createProps = map[string]bool{
	"KAFKA_TOPIC": true, "KEY_FORMAT": true, "VALUE_FORMAT": true, "FORMAT": true,
	"PARTITIONS": true, "REPLICAS": true, "TIMESTAMP": true, "TIMESTAMP_FORMAT": true,
	"WRAP_SINGLE_VALUE": true, "VALUE_DELIMITER": true, "KEY_DELIMITER": true,
	"WINDOW_TYPE": true, "WINDOW_SIZE": true, "RETENTION_MS": true, "CLEANUP_POLICY": true,
	"SOURCE_CONNECTOR": true, "KEY_SCHEMA_ID": true, "VALUE_SCHEMA_ID": true,
	"KEY_SCHEMA_FULL_NAME": true, "VALUE_SCHEMA_FULL_NAME": true, "VALUE_AVRO_SCHEMA_FULL_NAME": true,
	"KEY_PROTOBUF_NULLABLE_REPRESENTATION": true, "VALUE_PROTOBUF_NULLABLE_REPRESENTATION": true,
	"HISTORY_RETENTION": true,
}

// insertProps are INSERT INTO … SELECT's WITH properties (ksqlDB's
// InsertIntoConfigs).
var insertProps = map[string]bool{"QUERY_ID": true}

func newWithProps(ps ast.Properties) (*withProps, error) {
	if err := knownProps(ps, createProps); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, p := range ps {
		if seen[p.Name] {
			return nil, sqlerr.New(sqlerr.Semantic, p.P, "duplicate WITH property %s", p.Name)
		}
		seen[p.Name] = true
	}
	return &withProps{props: ps}, nil
}

// knownProps refuses the properties of ps that known does not list, all
// named in one message at the first, in ksqlDB's words (its
// PropertiesConfig).
func knownProps(ps ast.Properties, known map[string]bool) error {
	var unknown []string
	var at ast.Pos
	for _, p := range ps {
		if !known[p.Name] {
			if unknown == nil {
				at = p.P
			}
			unknown = append(unknown, p.Name)
		}
	}
	if unknown == nil {
		return nil
	}
	return sqlerr.New(sqlerr.Unknown, at, "Invalid config variable(s) in the WITH clause: %s", strings.Join(unknown, ","))
}

func (w *withProps) has(name string) bool {
	_, ok := w.props.Get(name)
	return ok
}

// str returns a property's value as a string ("" when absent).
func (w *withProps) str(name string) (string, ast.Pos, bool) {
	p, ok := w.props.Get(name)
	if !ok {
		return "", ast.Pos{}, false
	}
	switch v := p.Value.Value.(type) {
	case string:
		return v, p.P, true
	case bool:
		return strconv.FormatBool(v), p.P, true
	default:
		return literalText(p.Value), p.P, true
	}
}

// integer returns a property's value as an integer.
func (w *withProps) integer(name string) (int64, bool, error) {
	p, ok := w.props.Get(name)
	if !ok {
		return 0, false, nil
	}
	switch v := p.Value.Value.(type) {
	case int32:
		return int64(v), true, nil
	case int64:
		return v, true, nil
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err == nil {
			return n, true, nil
		}
	}
	return 0, true, sqlerr.New(sqlerr.Type, p.P, "WITH property %s must be an integer, got %s", name, literalText(p.Value))
}

// boolean returns a property's value as a boolean.
func (w *withProps) boolean(name string) (val, ok bool, err error) {
	p, ok := w.props.Get(name)
	if !ok {
		return false, false, nil
	}
	switch v := p.Value.Value.(type) {
	case bool:
		return v, true, nil
	case string:
		if b, err := strconv.ParseBool(v); err == nil {
			return b, true, nil
		}
	}
	return false, true, sqlerr.New(sqlerr.Type, p.P, "WITH property %s must be a boolean, got %s", name, literalText(p.Value))
}

func literalText(l *ast.Literal) string {
	if l.Type != nil && l.Type.Kind == types.KindString {
		return "'" + l.Value.(string) + "'"
	}
	return ast.FormatExpr(l)
}
