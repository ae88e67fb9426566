package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
)

// TestTableStoreInTableFormat: a non-aggregating CTAS keeps its rows in
// the table's own formats, as ksqlDB's store does, so a pull query reads
// what the PROTOBUF topic holds (a NULL as its proto3 default, as ksqlDB
// answers) while a JSON table keeps the NULL.
func TestTableStoreInTableFormat(t *testing.T) {
	for _, c := range []struct{ format, want string }{{"PROTOBUF", "[1 a 0]"}, {"JSON", "[1 a <nil>]"}} {
		e, err := NewTestEngine(nil, WithSchemaRegistry(newMemRegistry()))
		if err != nil {
			t.Fatal(err)
		}
		for _, sql := range []string{
			fmt.Sprintf(`CREATE TABLE t (id BIGINT PRIMARY KEY, name STRING, v BIGINT) WITH (KAFKA_TOPIC='t', VALUE_FORMAT='%s', PARTITIONS=1);`, c.format),
			`CREATE TABLE out AS SELECT * FROM t;`,
			`INSERT INTO t (id, name) VALUES (1, 'a');`,
		} {
			if _, err := e.ExecuteStatement(sql, map[string]any{"auto.offset.reset": "earliest"}); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
		}
		rs, err := e.Query(context.Background(), "SELECT * FROM out WHERE id = 1;", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var rows []string
		for {
			row, err := rs.Next(context.Background())
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, fmt.Sprint(row.Values))
		}
		if fmt.Sprint(rows) != "["+c.want+"]" {
			t.Errorf("%s: pull rows %v, want [%s]", c.format, rows, c.want)
		}
	}
}
