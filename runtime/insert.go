package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/proclog"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// insertsDisabled is ksqlDB's answer to INSERT INTO … VALUES and
// /inserts-stream when ksql.insert.into.values.enabled is false.
const insertsDisabled = "The server has disabled INSERT INTO ... VALUES functionality. " +
	"To enable it, restart your ksqlDB server with '" + props.InsertValues + "'=true"

// insertsEnabled reads ksql.insert.into.values.enabled (default true).
func insertsEnabled(p props.Properties) bool {
	return !strings.EqualFold(strings.TrimSpace(p[props.InsertValues]), "false")
}

// insertValues runs INSERT INTO … VALUES: the values are evaluated,
// coerced to the column types, serialized with the source's formats and
// produced to its topic (partitioned by key like any Kafka producer).
func (e *Engine) insertValues(ctx context.Context, st *ast.InsertValues, s *session) error {
	if !insertsEnabled(s.props) {
		return sqlerr.New(sqlerr.Unsupported, st.P, "%s", insertsDisabled)
	}
	e.mu.Lock()
	src, ok := e.cat.Get(st.Target)
	e.mu.Unlock()
	if !ok {
		return sqlerr.New(sqlerr.Unknown, st.P, "Cannot insert values into an unknown stream/table: %s", st.Target)
	}
	if src.ReadOnly || src.Name == proclog.Stream {
		return sqlerr.New(sqlerr.Semantic, st.P, "Cannot insert values into read-only %s: %s", strings.ToLower(src.Kind.String()), src.Name)
	}
	cols, err := insertColumns(src, st)
	if err != nil {
		return err
	}
	row := make([]any, len(src.Schema.Columns))
	ts := nowMillis()
	scope := expr.SchemaScope(&types.Schema{}, nil, false)
	for i, name := range cols {
		v, t, err := e.constant(st.Values[i], scope)
		if err != nil {
			return err
		}
		if name == "ROWTIME" {
			if ts, err = rowtimeValue(v, t); err != nil {
				return sqlerr.New(sqlerr.Type, st.Values[i].Position(), "%v", err)
			}
			continue
		}
		idx := src.Schema.Find(name)
		if row[idx], err = expr.CoerceLiteral(v, t, src.Schema.Columns[idx].Type); err != nil {
			return sqlerr.New(sqlerr.Type, st.Values[i].Position(), "Expected type %s for field %s but got %s(%s)%s", src.Schema.Columns[idx].Type, name, expr.JavaString(v), t, bytesReason(err, src.Schema.Columns[idx].Type))
		}
	}
	rec, err := encodeRow(src, row, ts)
	if err != nil {
		return err
	}
	return e.cluster.Produce(ctx, rec)
}

// bytesReason is the decoder's reason, for a value refused for a BYTES
// column (a string that is not base64): ksqlDB's message alone does not
// say which character is wrong.
func bytesReason(err error, to *types.Type) string {
	if to.Kind != types.KindBytes {
		return ""
	}
	return ": " + err.Error()
}

func (e *Engine) constant(x ast.Expr, scope expr.Scope) (any, *types.Type, error) {
	c, err := expr.Compile(x, scope, e.reg)
	if err != nil {
		return nil, nil, err
	}
	v, err := c.Eval(&types.Row{})
	if err != nil {
		return nil, nil, sqlerr.New(sqlerr.Type, x.Position(), "%v", err)
	}
	return v, c.Type(), nil
}

// insertColumns resolves the column list of INSERT VALUES: the given
// names, or all columns (keys first) when none are given.
func insertColumns(src *planner.Source, st *ast.InsertValues) ([]string, error) {
	cols := st.Columns
	if len(cols) == 0 {
		for _, c := range src.Schema.Columns {
			if c.NS != types.HeaderNS {
				cols = append(cols, c.Name)
			}
		}
	}
	if len(cols) != len(st.Values) {
		return nil, sqlerr.New(sqlerr.Semantic, st.P, "Expected number columns and values to match: %s, %s", strings.Join(cols, ", "), formatValues(st.Values))
	}
	for _, name := range cols {
		if name == "ROWTIME" {
			continue
		}
		i := src.Schema.Find(name)
		if i < 0 {
			if planner.IsPseudoColumn(name) {
				return nil, sqlerr.New(sqlerr.Semantic, st.P, "Inserting into column `%s` is not allowed.", name)
			}
			return nil, sqlerr.New(sqlerr.Unknown, st.P, "Column name `%s` does not exist.", name)
		}
		if src.Schema.Columns[i].NS == types.HeaderNS {
			return nil, sqlerr.New(sqlerr.Semantic, st.P, "Cannot insert into HEADER columns: %s", name)
		}
	}
	return cols, nil
}

func formatValues(vs []ast.Expr) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = ast.FormatExpr(v)
	}
	return strings.Join(out, ", ")
}

func rowtimeValue(v any, t *types.Type) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case int32:
		return int64(x), nil
	case types.Timestamp:
		return int64(x), nil
	}
	return 0, fmt.Errorf("ROWTIME must be a BIGINT or TIMESTAMP, got %s", t)
}

// encodeRow serializes a full row (schema order) into a record of src.
func encodeRow(src *planner.Source, row []any, ts int64) (*physical.OutRecord, error) {
	keys := src.Schema.Keys()
	var vals []types.Column
	var valVals []any
	for i, c := range src.Schema.Columns {
		if c.NS == types.ValueNS {
			vals = append(vals, c)
			valVals = append(valVals, row[i])
		}
	}
	kc, err := format.NewKeyCodec(src.KeyFormat, keys)
	if err != nil {
		return nil, err
	}
	vc, err := format.NewValueCodec(src.ValueFormat, vals)
	if err != nil {
		return nil, err
	}
	rec := &physical.OutRecord{Topic: src.Topic, Partition: -1, Timestamp: ts}
	if len(keys) > 0 && !allNil(row[:len(keys)]) {
		if rec.Key, err = kc.Encode(nil, row[:len(keys)]); err != nil {
			return nil, fmt.Errorf("Failed to insert values into '%s'. Could not serialize key: %w", src.Name, err)
		}
	}
	if rec.Value, err = vc.Encode(nil, valVals); err != nil {
		return nil, fmt.Errorf("Failed to insert values into '%s'. Could not serialize value: %w", src.Name, err)
	}
	if rec.Value == nil {
		rec.Value = []byte{}
	}
	return rec, nil
}

func allNil(vs []any) bool {
	for _, v := range vs {
		if v != nil {
			return false
		}
	}
	return true
}

// Insert writes one /inserts-stream row (JSON-decoded with UseNumber) to
// a stream; column names match case-insensitively.
func (e *Engine) Insert(ctx context.Context, target string, row map[string]any) error {
	if !insertsEnabled(e.props) {
		return errors.New(insertsDisabled)
	}
	e.mu.Lock()
	src, ok := e.cat.Get(target)
	if !ok {
		src, ok = e.cat.Get(strings.ToUpper(target))
	}
	e.mu.Unlock()
	if !ok {
		return fmt.Errorf("Cannot insert values into an unknown stream: %s", target)
	}
	if src.ReadOnly || src.Name == proclog.Stream {
		return fmt.Errorf("Cannot insert values into read-only source: %s", src.Name)
	}
	vals := make([]any, len(src.Schema.Columns))
	ts := nowMillis()
	for k, v := range row {
		if strings.EqualFold(k, "ROWTIME") {
			n, err := jsonInt(v)
			if err != nil {
				return fmt.Errorf("ROWTIME: %w", err)
			}
			ts = n
			continue
		}
		i := findFold(src.Schema, k)
		if i < 0 {
			return fmt.Errorf("Column name `%s` does not exist.", k)
		}
		cv, err := format.FromJSON(v, src.Schema.Columns[i].Type)
		if err != nil {
			return fmt.Errorf("column %s: %w", src.Schema.Columns[i].Name, err)
		}
		vals[i] = cv
	}
	rec, err := encodeRow(src, vals, ts)
	if err != nil {
		return err
	}
	return e.cluster.Produce(ctx, rec)
}

func findFold(s *types.Schema, name string) int {
	if i := s.Find(name); i >= 0 {
		return i
	}
	for i, c := range s.Columns {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

func jsonInt(v any) (int64, error) {
	switch n := v.(type) {
	case json.Number:
		return n.Int64()
	case float64:
		return int64(n), nil
	}
	return 0, fmt.Errorf("expected a number, got %s", jsonText(v))
}

// jsonText shows a decoded JSON value as JSON, never as a Go value.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("a %T", v)
	}
	return string(b)
}

func nowMillis() int64 { return time.Now().UnixMilli() }

// ProcessingLogStream is the stream over the processing-log topic (package
// runtime/proclog), which INSERT never writes.
const ProcessingLogStream = proclog.Stream
