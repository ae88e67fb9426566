package nexmark

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Row is one output row, column name (upper case, as ksqlDB names
// them) to value: int64, float64, string or nil.
type Row map[string]any

// KeyKind says how a sink's record key becomes columns of its rows.
type KeyKind uint8

const (
	// KeyNone: the key is not compared (a stream without a key).
	KeyNone KeyKind = iota
	// KeyBigint: the first 8 bytes are a KAFKA BIGINT (a windowed key's
	// window bounds that follow are not read; the query copies them into
	// the value).
	KeyBigint
	// KeyJSON: a JSON object whose fields are key columns, or a JSON
	// scalar for the one key column.
	KeyJSON
)

// canon renders one value so that the engine's JSON and the reference's
// Go values compare: integers exactly, other numbers to 12 significant
// digits (DECIMAL and DOUBLE arithmetic agree to far more), strings
// quoted.
func canon(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case float64:
		return strconv.FormatFloat(x, 'g', 12, 64)
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			return s
		}
		f, err := x.Float64()
		if err != nil {
			return s
		}
		return canon(f)
	case string:
		return strconv.Quote(x)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprintf("%T(%v)", v, v)
}

// Canonical is the row as one comparable line, columns in cols' order.
func (r Row) Canonical(cols []string) string {
	var sb strings.Builder
	for i, c := range cols {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(c)
		sb.WriteByte('=')
		sb.WriteString(canon(r[c]))
	}
	return sb.String()
}

// decodeValue reads a JSON object value into r (numbers kept exact).
func decodeValue(r Row, value []byte) error {
	d := json.NewDecoder(bytes.NewReader(value))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return err
	}
	for k, v := range m {
		r[k] = v
	}
	return nil
}

func decodeKey(r Row, kind KeyKind, cols []string, key []byte) error {
	switch kind {
	case KeyBigint:
		if len(key) < 8 {
			return fmt.Errorf("key %x is not a KAFKA BIGINT", key)
		}
		r[cols[0]] = int64(binary.BigEndian.Uint64(key))
	case KeyJSON:
		d := json.NewDecoder(bytes.NewReader(key))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			return fmt.Errorf("key %q: %v", key, err)
		}
		if m, ok := v.(map[string]any); ok {
			for k, x := range m {
				r[k] = x
			}
		} else {
			r[cols[0]] = v
		}
	}
	return nil
}

// Record is a sink record as read back from Kafka.
type Record struct {
	Key, Value []byte
	Offset     int64
}

// Rows turns a sink's records into rows: every record of a stream, or
// the last value of each key of a table (a tombstone removes the key).
func (q *Query) Rows(recs []Record) ([]Row, error) {
	if q.Table {
		recs = lastPerKey(recs)
	}
	rows := make([]Row, 0, len(recs))
	for _, rec := range recs {
		r := Row{}
		if err := decodeKey(r, q.Key, q.KeyColumns, rec.Key); err != nil {
			return nil, fmt.Errorf("%s offset %d: %v", q.Sink, rec.Offset, err)
		}
		if err := decodeValue(r, rec.Value); err != nil {
			return nil, fmt.Errorf("%s offset %d: value %q: %v", q.Sink, rec.Offset, rec.Value, err)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func lastPerKey(recs []Record) []Record {
	last := map[string]int{}
	for i, r := range recs {
		last[string(r.Key)] = i
	}
	var out []Record
	for i, r := range recs {
		if last[string(r.Key)] == i && r.Value != nil {
			out = append(out, r)
		}
	}
	return out
}

// Optional marks a reference row the engine may or may not produce:
// one that depends on which of two records with the same timestamp it
// processes first.
const Optional = "?optional"

// Diff compares rows as multisets and describes the first difference in
// sorted order, or returns "" when they agree: every required row of
// want is in got, and every other row of got is an optional row of want.
func Diff(cols []string, got, want []Row) string {
	var required, optional []Row
	for _, r := range want {
		if r[Optional] == true {
			optional = append(optional, r)
		} else {
			required = append(required, r)
		}
	}
	g, w := canonSorted(cols, got), canonSorted(cols, required)
	opt := map[string]int{}
	for _, o := range canonSorted(cols, optional) {
		opt[o]++
	}
	var extra []string
	i, j := 0, 0
	for i < len(g) || j < len(w) {
		switch {
		case j < len(w) && i < len(g) && g[i] == w[j]:
			i, j = i+1, j+1
		case j == len(w) || (i < len(g) && g[i] < w[j]):
			extra = append(extra, g[i])
			i++
		default:
			return fmt.Sprintf("%d rows, want %d (+%d optional); first missing: %s", len(g), len(w), len(optional), w[j])
		}
	}
	for _, e := range extra {
		if opt[e] == 0 {
			return fmt.Sprintf("%d rows, want %d (+%d optional); first unexpected: %s", len(g), len(w), len(optional), e)
		}
		opt[e]--
	}
	return ""
}

func canonSorted(cols []string, rows []Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Canonical(cols)
	}
	sort.Strings(out)
	return out
}
