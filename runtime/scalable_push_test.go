package runtime

import (
	"context"
	"regexp"
	"testing"

	"github.com/sqlstream/sqlstream/runtime/props"
)

// TestScalablePushQueryIDs: with ksql.query.push.v2.enabled and reading
// from latest, a push query over the output of exactly one persistent
// query, without GROUP BY, WINDOW, HAVING, PARTITION BY, ROWPARTITION or
// ROWOFFSET, is named SCALABLE_PUSH_QUERY_<uuid> as in ksqlDB; any other
// SELECT keeps its transient_ name, and so does every one with the
// property off.
func TestScalablePushQueryIDs(t *testing.T) {
	spq := regexp.MustCompile(`^SCALABLE_PUSH_QUERY_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	transient := regexp.MustCompile(`^transient_[A-Z0-9_]+_[0-9]+$`)
	cases := []struct {
		sql   string
		props map[string]any
		want  *regexp.Regexp
	}{
		{"SELECT * FROM OUT EMIT CHANGES;", nil, spq},
		{"SELECT K, ID + 1 AS X FROM OUT WHERE ID > 1 EMIT CHANGES LIMIT 0;", nil, spq},
		{"SELECT * FROM I EMIT CHANGES;", nil, transient}, // no query writes I
		{"SELECT * FROM OUT EMIT CHANGES;", map[string]any{"auto.offset.reset": "earliest"}, transient},
		{"SELECT K, COUNT(*) AS C FROM OUT GROUP BY K EMIT CHANGES;", nil, transient},
		{"SELECT * FROM OUT PARTITION BY ID EMIT CHANGES;", nil, transient},
		{"SELECT ROWPARTITION, K FROM OUT EMIT CHANGES;", nil, transient},
		{"SELECT * FROM OUT WHERE ROWOFFSET > 1 EMIT CHANGES;", nil, transient},
		{"SELECT * FROM OUT2 EMIT CHANGES;", nil, transient}, // two queries write OUT2
		{"SELECT * FROM OUT EMIT CHANGES;", map[string]any{props.PushV2: false}, transient},
	}
	te, err := NewTestEngine(map[string]string{props.PushV2: "true", props.OffsetReset: "latest"})
	if err != nil {
		t.Fatal(err)
	}
	defer te.Close()
	mustRun(t, te, `CREATE STREAM I (K STRING KEY, ID INT) WITH (KAFKA_TOPIC='i', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	mustRun(t, te, `CREATE STREAM OUT AS SELECT * FROM I;`)
	mustRun(t, te, `CREATE STREAM OUT2 AS SELECT * FROM I;`)
	mustRun(t, te, `INSERT INTO OUT2 SELECT * FROM I;`)
	for _, c := range cases {
		rs, err := te.Query(context.Background(), c.sql, c.props, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if id := rs.Header().QueryID; !c.want.MatchString(id) {
			t.Errorf("%s %v: query id %q, want %s", c.sql, c.props, id, c.want)
		}
		rs.Close()
	}
}
