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

// knownProps lists the WITH properties sqlstream understands, per statement
// kind: true for CREATE, false for … AS SELECT only. Both kinds accept the
// common ones.
var createProps = map[string]bool{
	"KAFKA_TOPIC": true, "KEY_FORMAT": true, "VALUE_FORMAT": true, "FORMAT": true,
	"PARTITIONS": true, "REPLICAS": true, "TIMESTAMP": true, "TIMESTAMP_FORMAT": true,
	"WRAP_SINGLE_VALUE": true, "VALUE_DELIMITER": true, "KEY_DELIMITER": true,
	"WINDOW_TYPE": true, "WINDOW_SIZE": true, "RETENTION_MS": true, "CLEANUP_POLICY": true,
	"SOURCE_CONNECTOR": true, "KEY_SCHEMA_ID": true, "VALUE_SCHEMA_ID": true,
	"KEY_SCHEMA_FULL_NAME": true, "VALUE_SCHEMA_FULL_NAME": true,
	"VALUE_AVRO_SCHEMA_FULL_NAME": true, "QUERY_ID": true,
	"KEY_PROTOBUF_NULLABLE_REPRESENTATION": true, "VALUE_PROTOBUF_NULLABLE_REPRESENTATION": true,
	"HISTORY_RETENTION": true,
}

func newWithProps(ps ast.Properties) (*withProps, error) {
	seen := map[string]bool{}
	for _, p := range ps {
		if !createProps[p.Name] {
			return nil, sqlerr.New(sqlerr.Unknown, p.P, "unknown WITH property %s", p.Name)
		}
		if seen[p.Name] {
			return nil, sqlerr.New(sqlerr.Semantic, p.P, "duplicate WITH property %s", p.Name)
		}
		seen[p.Name] = true
	}
	return &withProps{props: ps}, nil
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
