package runtime

import (
	"context"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/runtime/props"
)

// TestPullLimitClauseDisabled: ksql.query.pull.limit.clause.enabled=false
// refuses LIMIT in pull queries only, with ksqlDB's message.
func TestPullLimitClauseDisabled(t *testing.T) {
	te, err := NewTestEngine(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer te.Close()
	mustRun(t, te, `CREATE STREAM s (id INT KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	off := map[string]any{props.PullLimit: false}
	for _, c := range []struct {
		sql   string
		props map[string]any
		fails bool
	}{
		{"SELECT * FROM s LIMIT 2;", nil, false},
		{"SELECT * FROM s LIMIT 2;", off, true},
		{"SELECT * FROM s;", off, false},
		{"SELECT * FROM s EMIT CHANGES LIMIT 2;", off, false},
	} {
		rs, err := te.Query(context.Background(), c.sql, c.props, nil)
		if err == nil {
			rs.Close()
		}
		switch {
		case c.fails && (err == nil || !strings.Contains(err.Error(), "LIMIT clause in pull queries is currently disabled")):
			t.Errorf("%s %v: %v, want the LIMIT-disabled error", c.sql, c.props, err)
		case !c.fails && err != nil:
			t.Errorf("%s %v: %v", c.sql, c.props, err)
		}
	}
}
