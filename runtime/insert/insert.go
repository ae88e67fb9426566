package insert

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// Values evaluates INSERT … VALUES into a full row of src (schema
// order) and its time (now unless ROWTIME is given): each value through
// eval (a constant expression), coerced to its column's type; an error
// is at the value's position, in ksqlDB's words.
func Values(src *planner.Source, st *ast.InsertValues, eval func(ast.Expr) (any, *types.Type, error), now int64) ([]any, int64, error) {
	cols, err := columns(src, st)
	if err != nil {
		return nil, 0, err
	}
	row := make([]any, len(src.Schema.Columns))
	ts := now
	for i, name := range cols {
		v, t, err := eval(st.Values[i])
		if err != nil {
			return nil, 0, err
		}
		if name == "ROWTIME" {
			if ts, err = rowtimeValue(v, t); err != nil {
				return nil, 0, sqlerr.New(sqlerr.Type, st.Values[i].Position(), "%v", err)
			}
			continue
		}
		idx := src.Schema.Find(name)
		if row[idx], err = expr.CoerceLiteral(v, t, src.Schema.Columns[idx].Type); err != nil {
			return nil, 0, sqlerr.New(sqlerr.Type, st.Values[i].Position(), "Expected type %s for field %s but got %s(%s)%s", src.Schema.Columns[idx].Type, name, expr.JavaString(v), t, bytesReason(err, src.Schema.Columns[idx].Type))
		}
	}
	return row, ts, nil
}

// JSONRow reads one /inserts-stream row (JSON-decoded with UseNumber)
// into a full row of src and its time (now unless ROWTIME is given);
// column names match case-insensitively.
func JSONRow(src *planner.Source, row map[string]any, now int64) ([]any, int64, error) {
	vals := make([]any, len(src.Schema.Columns))
	ts := now
	for k, v := range row {
		if strings.EqualFold(k, "ROWTIME") {
			n, err := jsonInt(v)
			if err != nil {
				return nil, 0, fmt.Errorf("ROWTIME: %w", err)
			}
			ts = n
			continue
		}
		i := findFold(src.Schema, k)
		if i < 0 {
			return nil, 0, fmt.Errorf("Column name `%s` does not exist.", k)
		}
		cv, err := format.FromJSON(v, src.Schema.Columns[i].Type)
		if err != nil {
			return nil, 0, fmt.Errorf("column %s: %w", src.Schema.Columns[i].Name, err)
		}
		vals[i] = cv
	}
	return vals, ts, nil
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

// columns resolves the column list of INSERT VALUES: the given names,
// or all columns (keys first) when none are given.
func columns(src *planner.Source, st *ast.InsertValues) ([]string, error) {
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

// Encode serializes a full row (schema order) into a record of src,
// produced with the row's time ts (partition -1: by the key).
func Encode(src *planner.Source, row []any, ts int64) (*physical.OutRecord, error) {
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
