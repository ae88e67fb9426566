package sqltest

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sqlstream/sqlstream/qtt"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/types"
)

// The failure texts of ksqlDB's AssertExecutor.
const (
	msgMismatch     = "Expected record does not match actual."
	msgNoMoreRecord = "Expected another record, but all records have already been read:"
	msgNullValues   = "Unexpected value columns specified in ASSERT NULL VALUES."
)

// expected is the record an ASSERT describes: the listed columns (schema
// indexes, or ROWTIME / WINDOWSTART / WINDOWEND) and their values.
type expected struct {
	cols   []string
	index  []int // schema index per col; -1 for a pseudo column
	values []any
}

// actual is a record of the source's topic, decoded.
type actual struct {
	offset    int
	row       []any // schema order; nil entries for header columns
	tombstone bool
	ts        int64
	window    *types.Window
}

// assertRecord runs ASSERT VALUES or ASSERT NULL VALUES: the next record
// of the source's topic must match.
func (r *runner) assertRecord(s step) *stepError {
	ins, serr := parseAssert[*ast.InsertValues](s)
	if serr != nil {
		return serr
	}
	src, serr := r.source(ins.Target)
	if serr != nil {
		return serr
	}
	exp, serr := r.expected(src, ins)
	if serr != nil {
		return serr
	}
	null := s.kind == stepAssertNull
	if null && exp.hasValues(src) {
		return fail(kindRecord, "%s", msgNullValues)
	}
	if r.topics == nil {
		return &stepError{kind: kindHarness, err: errNoTopicReader}
	}
	act, serr := r.next(src)
	if serr != nil {
		return serr
	}
	if !exp.matches(src, act, null) {
		return &stepError{kind: kindRecord, err: errors.New(msgMismatch),
			detail: []string{msgMismatch, "expected: " + exp.render(src, null), "actual:   " + act.render(src)}}
	}
	return nil
}

// parseAssert parses the statement an ASSERT was rewritten into.
func parseAssert[T ast.Statement](s step) (T, *stepError) {
	var zero T
	stmts, err := parser.Parse(s.sql)
	if err != nil {
		return zero, &stepError{kind: kindHarness, err: fmt.Errorf("cannot read the ASSERT: %w", err), detail: qtt.StatementDetail(s.text, err)[1:]}
	}
	st, ok := stmts[0].(T)
	if len(stmts) != 1 || !ok {
		return zero, fail(kindHarness, "cannot read the ASSERT: it is not one ASSERT statement")
	}
	return st, nil
}

// source finds the catalog entry named name.
func (r *runner) source(name string) (*qtt.SourceInfo, *stepError) {
	for _, s := range r.d.Sources() {
		if s.Name == name {
			return &s, nil
		}
	}
	return nil, fail(kindStatement, "Source %s does not exist.", name)
}

// expected evaluates the ASSERT's values as INSERT VALUES does: each is
// coerced to its column's type; ROWTIME and the window bounds are BIGINT.
func (r *runner) expected(src *qtt.SourceInfo, ins *ast.InsertValues) (*expected, *stepError) {
	cols := ins.Columns
	if len(cols) == 0 {
		for _, c := range src.Schema.Columns {
			if c.NS != types.HeaderNS {
				cols = append(cols, c.Name)
			}
		}
	}
	if len(cols) != len(ins.Values) {
		return nil, fail(kindStatement, "Expected number columns and values to match: %s, %d values", strings.Join(cols, ", "), len(ins.Values))
	}
	exp := &expected{cols: cols}
	for i, name := range cols {
		idx, v, err := r.expectedValue(src, name, ins.Values[i])
		if err != nil {
			return nil, err
		}
		exp.index, exp.values = append(exp.index, idx), append(exp.values, v)
	}
	return exp, nil
}

func (r *runner) expectedValue(src *qtt.SourceInfo, name string, x ast.Expr) (int, any, *stepError) {
	c, err := expr.Compile(x, expr.SchemaScope(&types.Schema{}, nil, false), r.reg)
	if err != nil {
		return 0, nil, &stepError{kind: kindStatement, err: err}
	}
	v, err := c.Eval(&types.Row{})
	if err != nil {
		return 0, nil, &stepError{kind: kindStatement, err: err}
	}
	to := types.BigintType
	idx := -1
	switch name {
	case "ROWTIME", "WINDOWSTART", "WINDOWEND":
	default:
		if idx = src.Schema.Find(name); idx < 0 {
			return 0, nil, fail(kindStatement, "Column name `%s` does not exist.", name)
		}
		if src.Schema.Columns[idx].NS == types.HeaderNS {
			return 0, nil, fail(kindHarness, "ASSERT VALUES cannot check HEADER column `%s`", name)
		}
		to = src.Schema.Columns[idx].Type
	}
	coerced, err := expr.CoerceLiteral(v, c.Type(), to)
	if err != nil {
		reason := "" // for BYTES, which character is not base64
		if to.Kind == types.KindBytes {
			reason = ": " + err.Error()
		}
		return 0, nil, fail(kindStatement, "Expected type %s for field %s but got %s(%s)%s", to, name, expr.JavaString(v), c.Type(), reason)
	}
	return idx, coerced, nil
}

// hasValues reports whether a value column has a non-NULL expected value.
func (e *expected) hasValues(src *qtt.SourceInfo) bool {
	for i, idx := range e.index {
		if idx >= 0 && src.Schema.Columns[idx].NS == types.ValueNS && e.values[i] != nil {
			return true
		}
	}
	return false
}

// matches compares as ksqlDB's AssertExecutor: a row needs every listed
// column equal (ROWTIME only when listed); a tombstone needs the whole
// key equal, the columns not listed being NULL.
func (e *expected) matches(src *qtt.SourceInfo, a *actual, null bool) bool {
	if null {
		return a.tombstone && e.keyMatches(src, a)
	}
	if a.tombstone {
		return false
	}
	for i, name := range e.cols {
		if !equal(e.values[i], a.value(e.index[i], name, src)) {
			return false
		}
	}
	return true
}

func (e *expected) keyMatches(src *qtt.SourceInfo, a *actual) bool {
	for i, c := range src.Schema.Columns {
		if c.NS != types.KeyNS {
			continue
		}
		var want any
		for j, idx := range e.index {
			if idx == i {
				want = e.values[j]
			}
		}
		if !equal(want, a.row[i]) {
			return false
		}
	}
	return true
}

// value is the actual value of a listed column.
func (a *actual) value(idx int, name string, src *qtt.SourceInfo) any {
	switch {
	case idx >= 0:
		return a.row[idx]
	case name == "ROWTIME":
		return a.ts
	case a.window == nil:
		return nil
	case name == "WINDOWSTART":
		return a.window.Start
	}
	return a.window.End
}

func equal(x, y any) bool {
	if x == nil || y == nil {
		return x == nil && y == nil
	}
	return types.ValuesEqual(x, y)
}

// next decodes the next record of src's topic the test has not read.
func (r *runner) next(src *qtt.SourceInfo) (*actual, *stepError) {
	recs, err := r.topics.ReadAll(src.Topic)
	if err != nil {
		return nil, &stepError{kind: kindHarness, err: fmt.Errorf("cannot read topic %s back: %w", src.Topic, err)}
	}
	i := r.read[src.Topic]
	if i >= len(recs) {
		detail := []string{msgNoMoreRecord}
		for j := range recs {
			if a, err := decode(src, recs[j], j); err == nil {
				detail = append(detail, "  "+a.render(src))
			}
		}
		return nil, &stepError{kind: kindRecord, err: fmt.Errorf("%s %d records in topic %s", msgNoMoreRecord, len(recs), src.Topic), detail: detail}
	}
	r.read[src.Topic] = i + 1
	a, err := decode(src, recs[i], i)
	if err != nil {
		return nil, fail(kindRecord, "record %d of topic %s does not decode as %s: %v", i, src.Topic, src.Name, err)
	}
	return a, nil
}

// decode reads record n of src's topic with the source's formats.
func decode(src *qtt.SourceInfo, rec qtt.Record, n int) (*actual, error) {
	a := &actual{offset: n, row: make([]any, len(src.Schema.Columns)), ts: rec.Timestamp}
	key := rec.Key
	if src.Windowed && key != nil {
		inner, w, err := format.DecodeWindowedKey(key, src.WindowType == "SESSION")
		if err != nil {
			return nil, err
		}
		if src.WindowType != "SESSION" {
			w.End = w.Start + src.WindowSize
		}
		key, a.window = inner, &w
	}
	if err := decodeSide(src.KeyFormat, src.Schema, types.KeyNS, key, a.row, true); err != nil {
		return nil, fmt.Errorf("key: %w", err)
	}
	if rec.Value == nil {
		a.tombstone = true
		return a, nil
	}
	err := decodeSide(src.ValueFormat, src.Schema, types.ValueNS, rec.Value, a.row, false)
	if errors.Is(err, format.ErrNullRecord) {
		a.tombstone = true
		return a, nil
	}
	if err != nil {
		return nil, fmt.Errorf("value: %w", err)
	}
	return a, nil
}

// decodeSide decodes the columns of namespace ns into their places in row.
func decodeSide(spec format.Spec, s *types.Schema, ns types.Namespace, b []byte, row []any, key bool) error {
	var cols []types.Column
	var at []int
	for i, c := range s.Columns {
		if c.NS == ns {
			cols, at = append(cols, c), append(at, i)
		}
	}
	if len(cols) == 0 || b == nil {
		return nil
	}
	var codec format.Codec
	var err error
	if key {
		codec, err = format.NewKeyCodec(spec, cols)
	} else {
		codec, err = format.NewValueCodec(spec, cols)
	}
	if err != nil {
		return err
	}
	vals := make([]any, len(cols))
	if err := codec.Decode(b, vals); err != nil {
		return err
	}
	for j, i := range at {
		row[i] = vals[j]
	}
	return nil
}

// render prints the expected columns: NAME=value, ….
func (e *expected) render(src *qtt.SourceInfo, null bool) string {
	parts := make([]string, len(e.cols))
	for i, name := range e.cols {
		parts[i] = name + "=" + show(e.values[i])
	}
	out := strings.Join(parts, ", ")
	if null {
		out += " <TOMBSTONE>"
	}
	return out
}

// render prints the record: its keys, ROWTIME, window and values.
func (a *actual) render(src *qtt.SourceInfo) string {
	parts := []string{fmt.Sprintf("#%d", a.offset)}
	for i, c := range src.Schema.Columns {
		if c.NS == types.KeyNS {
			parts = append(parts, c.Name+"="+show(a.row[i]))
		}
	}
	parts = append(parts, fmt.Sprintf("ROWTIME=%d", a.ts))
	if a.window != nil {
		parts = append(parts, fmt.Sprintf("WINDOWSTART=%d", a.window.Start), fmt.Sprintf("WINDOWEND=%d", a.window.End))
	}
	if a.tombstone {
		return strings.Join(append(parts, "<TOMBSTONE>"), ", ")
	}
	for i, c := range src.Schema.Columns {
		if c.NS == types.ValueNS {
			parts = append(parts, c.Name+"="+show(a.row[i]))
		}
	}
	return strings.Join(parts, ", ")
}

func show(v any) string {
	if v == nil {
		return "null"
	}
	return expr.JavaString(v)
}
