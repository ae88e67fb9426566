package runtime

import (
	"context"
	"strings"
	"testing"
)

// goValue reports whether an error message shows a Go value (a pointer
// "&{…}", an address "0x…" or a map "map[…]") instead of SQL text.
func goValue(msg string) bool {
	return strings.Contains(msg, "&{") || strings.Contains(msg, "0x") || strings.Contains(msg, "map[")
}

// TestErrorsShowNoGoValues walks the error paths of INSERT VALUES (type
// mismatches of every type against compound values, column lists,
// ROWTIME, serialization), of the expression evaluator reached through
// INSERT VALUES' constant expressions (casts, functions, arithmetic,
// subscripts, structs), and of the JSON inserts of /inserts-stream: each
// must fail, and no message may show a Go value.
func TestErrorsShowNoGoValues(t *testing.T) {
	e, err := NewTestEngine(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, sql := range []string{
		`CREATE STREAM s (k INT KEY, a INT, b ARRAY<INTEGER>, m MAP<STRING, INT>, st STRUCT<x INT, y ARRAY<INT>>, d DECIMAL(4,2), ts TIMESTAMP, bs BYTES, s2 STRING) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);`,
		`CREATE STREAM kv (k STRING KEY, v INT) WITH (KAFKA_TOPIC='kv', KEY_FORMAT='KAFKA', VALUE_FORMAT='KAFKA', PARTITIONS=1);`,
		`CREATE STREAM dl (k STRING KEY, v INT, w STRING) WITH (KAFKA_TOPIC='dl', VALUE_FORMAT='DELIMITED', PARTITIONS=1);`,
	} {
		if _, err := e.ExecuteStatement(sql, nil); err != nil {
			t.Fatal(err)
		}
	}
	bad := []string{
		// type mismatches: every column against compound and scalar values
		`INSERT INTO s (k, b) VALUES (1, STRUCT(x := ARRAY[5, 10, 15], y := MAP('x' := 1)));`,
		`INSERT INTO s (k, a) VALUES (1, ARRAY[1, 2]);`,
		`INSERT INTO s (k, a) VALUES (1, MAP('a' := 1));`,
		`INSERT INTO s (k, a) VALUES (1, STRUCT(x := 1));`,
		`INSERT INTO s (k, b) VALUES (1, MAP('a' := ARRAY[1]));`,
		`INSERT INTO s (k, m) VALUES (1, ARRAY[STRUCT(x := 1)]);`,
		`INSERT INTO s (k, m) VALUES (1, MAP('a' := 'b'));`,
		`INSERT INTO s (k, st) VALUES (1, STRUCT(x := 'a', y := ARRAY['b']));`,
		`INSERT INTO s (k, st) VALUES (1, MAP('x' := 1));`,
		`INSERT INTO s (k, d) VALUES (1, STRUCT(x := 1.5));`,
		`INSERT INTO s (k, ts) VALUES (1, ARRAY[TIMESTAMP '2020-01-01T00:00:00']);`,
		`INSERT INTO s (k, bs) VALUES (1, MAP('a' := BYTES 'x'));`,
		`INSERT INTO s (k, s2) VALUES (1, STRUCT(a := BYTES 'x'));`,
		`INSERT INTO s (k, s2) VALUES (1, ARRAY[MAP('a' := STRUCT(b := 1))]);`,
		`INSERT INTO s (STRUCT(x := 1), a) VALUES (1, 2);`,
		`INSERT INTO s (k, a) VALUES (STRUCT(x := 1), 2);`,
		// column lists and ROWTIME
		`INSERT INTO s (k, a) VALUES (1);`,
		`INSERT INTO s (k, nope) VALUES (1, 2);`,
		`INSERT INTO s (ROWTIME, k) VALUES (STRUCT(x := 1), 1);`,
		`INSERT INTO s (ROWTIME, k) VALUES (MAP('a' := 1), 1);`,
		`INSERT INTO s (ROWTIME, k) VALUES (ARRAY[1], 1);`,
		`INSERT INTO nope (k) VALUES (1);`,
		// serialization: a compound value into KAFKA or DELIMITED
		`INSERT INTO kv (k, v) VALUES (STRUCT(x := 1), 1);`,
		`INSERT INTO dl (k, v, w) VALUES ('a', 1, ARRAY['x']);`,
		// the expression evaluator on constants
		`INSERT INTO s (k, a) VALUES (1, CAST(STRUCT(x := 1) AS INT));`,
		`INSERT INTO s (k, a) VALUES (1, CAST(MAP('a' := 1) AS INT));`,
		`INSERT INTO s (k, a) VALUES (1, CAST('x' AS INT));`,
		`INSERT INTO s (k, d) VALUES (1, CAST(123456 AS DECIMAL(4,2)));`,
		`INSERT INTO s (k, a) VALUES (1, ARRAY[1, 2] + 1);`,
		`INSERT INTO s (k, a) VALUES (1, STRUCT(x := 1) + 1);`,
		`INSERT INTO s (k, a) VALUES (1, MAP('a' := 1) * 2);`,
		`INSERT INTO s (k, a) VALUES (1, STRUCT(x := 1)->nope);`,
		`INSERT INTO s (k, a) VALUES (1, ARRAY[1]['a']);`,
		`INSERT INTO s (k, a) VALUES (1, MAP('a' := 1)[1]);`,
		`INSERT INTO s (k, a) VALUES (1, ABS(STRUCT(x := 1)));`,
		`INSERT INTO s (k, a) VALUES (1, LEN(MAP('a' := 1)));`,
		`INSERT INTO s (k, a) VALUES (1, NOPE_FN(1));`,
		`INSERT INTO s (k, a) VALUES (1, CASE WHEN STRUCT(x := 1) THEN 1 END);`,
		`INSERT INTO s (k, a) VALUES (1, STRUCT(x := 1) = ARRAY[1]);`,
		`INSERT INTO s (k, a) VALUES (1, MAP('a' := 1) IN (1, 2));`,
		`INSERT INTO s (k, a) VALUES (1, ARRAY[1] BETWEEN 1 AND 2);`,
		`INSERT INTO s (k, a) VALUES (1, STRUCT(x := 1) LIKE 'a');`,
		`INSERT INTO s (k, a) VALUES (1, 1 / 0);`,
		`INSERT INTO s (k, bs) VALUES (1, FROM_BYTES(BYTES 'x', 'nope'));`,
		`INSERT INTO s (k, a) VALUES (1, ELT(STRUCT(x := 1), 'a'));`,
		`INSERT INTO s (k, a) VALUES (1, ARRAY_LENGTH(MAP('a' := STRUCT(x := 1))));`,
	}
	for _, sql := range bad {
		_, err := e.ExecuteStatement(sql, nil)
		switch {
		case err == nil:
			// 1 / 0 is NULL in ksqlDB; everything else must fail
			if !strings.Contains(sql, "1 / 0") {
				t.Errorf("%s: no error", sql)
			}
		case goValue(err.Error()):
			t.Errorf("%s: the error shows a Go value: %v", sql, err)
		}
	}
	jsonRows := []map[string]any{
		{"K": 1, "B": map[string]any{"x": []any{5.0, 10.0}, "y": map[string]any{"z": 1.0}}},
		{"K": 1, "A": map[string]any{"x": 1.0}},
		{"K": 1, "A": []any{1.0, map[string]any{"x": 1.0}}},
		{"K": 1, "ST": []any{map[string]any{"x": 1.0}}},
		{"K": 1, "M": []any{1.0}},
		{"K": 1, "D": map[string]any{"x": "1"}},
		{"K": 1, "TS": map[string]any{"x": 1.0}},
		{"K": 1, "BS": map[string]any{"x": 1.0}},
		{"K": 1, "ROWTIME": map[string]any{"x": 1.0}},
		{"K": 1, "ROWTIME": []any{1.0}},
	}
	for _, row := range jsonRows {
		err := e.Insert(context.Background(), "S", row)
		switch {
		case err == nil:
			t.Errorf("insert %v: no error", row)
		case goValue(err.Error()):
			t.Errorf("insert %v: the error shows a Go value: %v", row, err)
		}
	}
}
