package parser

import (
	"testing"

	"github.com/sqlstream/sqlstream/sql/ast"
)

// FuzzParse: whatever the text, Parse returns statements or an error,
// never panics or overflows the stack, and a statement it returns formats
// to text that parses again.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"CREATE STREAM s (id VARCHAR KEY, a ARRAY<STRUCT<b INT>>) WITH (KAFKA_TOPIC='t', VALUE_FORMAT='JSON');",
		"CREATE TABLE t AS SELECT id, COUNT(*) FROM s WINDOW HOPPING (SIZE 1 MINUTE, ADVANCE BY 10 SECONDS) GROUP BY id EMIT CHANGES;",
		"SELECT a->b[1], CAST(x AS DECIMAL(4, 2)), TRANSFORM(arr, (v) => v + 1), MAP('k' := 1) FROM s WHERE a LIKE '%x' ESCAPE '!' EMIT CHANGES;",
		"INSERT INTO s (id, a) VALUES ('k', ARRAY[STRUCT(b := 1)]);",
		"SELECT * FROM a FULL OUTER JOIN b WITHIN 1 HOUR ON a.id = b.id PARTITION BY a.x EMIT CHANGES LIMIT 3;",
		"SELECT CASE WHEN a IS NOT DISTINCT FROM b THEN 1 ELSE -2 END, DECIMAL '1.5', ts AT TIME ZONE 'UTC' FROM s;",
		"SHOW STREAMS EXTENDED; DESCRIBE s; DROP TABLE IF EXISTS t DELETE TOPIC; SET 'auto.offset.reset'='earliest';",
		"SELECT ((((1)))) FROM s; SELECT `q``x`, \"Dq\" FROM s;",
		"CREATE TYPE ADDR AS STRUCT<street STRING>; SELECT ${v} FROM s;",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		stmts, err := Parse(text)
		if err != nil {
			return
		}
		for _, st := range stmts {
			canon := ast.FormatStatement(st)
			if _, err := Parse(canon); err != nil {
				t.Errorf("%q formats to %q, which does not parse: %v", st.Text(), canon, err)
			}
		}
	})
}
