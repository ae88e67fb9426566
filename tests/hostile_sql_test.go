package tests

import (
	"fmt"
	"strings"
	"testing"
)

// TestHostileStatementsRefused is issue 9's SQL side through the HTTP
// API: each statement is refused with its reason (and, where it has one,
// its position), and the server keeps answering after each.
func TestHostileStatementsRefused(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	n.mustKsql(`CREATE STREAM hs (id VARCHAR KEY, a VARCHAR, n INT)
	  WITH (KAFKA_TOPIC='hs', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	deep := strings.Repeat("(", 500_000) + "1" + strings.Repeat(")", 500_000)
	for _, tc := range []struct{ name, sql, want string }{
		{"nested create (9.1)", "CREATE STREAM deep AS SELECT " + deep + " AS x FROM hs;",
			"line 1:530: expression nested too deeply: more than 500 levels"},
		{"nested operators (9.1)", "CREATE STREAM deep AS SELECT 1" + strings.Repeat("+1", 300_000) + " AS x FROM hs;",
			"expression too long: more than 80000 operators at one level of nesting"},
		{"hopping windows per record (9.4)", `CREATE TABLE hop AS SELECT id, COUNT(*) AS c FROM hs
		  WINDOW HOPPING (SIZE 1 DAY, ADVANCE BY 1 MILLISECOND) GROUP BY id;`,
			"puts each record into 86400000 windows, more than the limit of 10000 (sqlstream.window.max.per.record)"},
		{"retention below size + grace (9.19)", `CREATE TABLE ret AS SELECT id, COUNT(*) AS c FROM hs
		  WINDOW TUMBLING (SIZE 1 HOUR, RETENTION 1 HOUR, GRACE PERIOD 1 MINUTE) GROUP BY id;`,
			"must be no smaller than its window size plus the grace period. Got size=[3600000], grace=[60000], retention=[3600000]"},
		{"reserved word as a name (9.18)", "CREATE STREAM table (size INT) WITH (KAFKA_TOPIC='rw', VALUE_FORMAT='JSON', PARTITIONS=1);",
			"line 1:15: TABLE is a reserved word: quote it (`table`) to use it as a name"},
		{"reserved word as a column (9.18)", "CREATE STREAM rwc AS SELECT size FROM hs;",
			"line 1:29: SIZE is a reserved word"},
		{"invalid regular expression (9.21)", "CREATE STREAM re AS SELECT REGEXP_EXTRACT('(a', a) AS x FROM hs;",
			"line 1:43: REGEXP_EXTRACT: invalid regular expression pattern"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := n.ksql(tc.sql, nil)
			if status != 400 || !strings.Contains(fmt.Sprint(body), tc.want) {
				t.Errorf("%d %.300v, want 400 with %q", status, body, tc.want)
			}
			n.mustKsql("SHOW STREAMS;")
		})
	}
	n.mustKsql("CREATE STREAM `TABLE` (`SIZE` INT) WITH (KAFKA_TOPIC='rw', VALUE_FORMAT='JSON', PARTITIONS=1);")
	for _, tc := range []struct{ name, sql, want string }{
		{"transient nested select (9.1)", "SELECT " + deep + " FROM hs EMIT CHANGES;",
			"line 1:508: expression nested too deeply: more than 500 levels"},
		{"transient hopping windows (9.4)", "SELECT id, COUNT(*) FROM hs WINDOW HOPPING (SIZE 1 DAY, ADVANCE BY 1 MILLISECOND) GROUP BY id EMIT CHANGES;",
			"86400000 windows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := n.post("/query-stream", "application/vnd.ksqlapi.delimited.v1", map[string]any{"sql": tc.sql})
			if status != 400 || !strings.Contains(string(body), tc.want) {
				t.Errorf("%d %.300s, want 400 with %q", status, body, tc.want)
			}
			n.mustKsql("SHOW STREAMS;")
		})
	}
}

// TestPaddingPastLimitIsLogged is issue 9.5 through the binary: LPAD to
// two billion characters is NULL for that record, with the limit named
// in the processing log, and the query goes on with the next record.
func TestPaddingPastLimitIsLogged(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	n.mustKsql(`CREATE STREAM pads (id VARCHAR KEY, a VARCHAR, n INT)
	  WITH (KAFKA_TOPIC='pads', VALUE_FORMAT='JSON', PARTITIONS=1);
	CREATE STREAM padded AS SELECT id, LPAD(a, n, 'x') AS p FROM pads;`)
	produce(t, n.Kafka, "pads", "k1", `{"A":"a","N":2147483647}`, "k2", `{"A":"a","N":3}`)
	out := strings.Join(consume(t, n.Kafka, "PADDED", 2), "\n")
	if !strings.Contains(out, `{"P":null}`) || !strings.Contains(out, `{"P":"xxa"}`) {
		t.Errorf("PADDED: %s", out)
	}
	logged := strings.Join(consume(t, n.Kafka, "default_ksql_processing_log", 1), "\n")
	if !strings.Contains(logged, "more than the limit of 10485760 (sqlstream.function.max.result.bytes)") {
		t.Errorf("processing log: %s", logged)
	}
	n.mustKsql("SHOW QUERIES;")
}
