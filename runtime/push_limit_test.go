package runtime

import (
	"context"
	"errors"
	"testing"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime/props"
)

// TestMaxPushQueries is issue 9.7: push queries beyond
// ksql.max.push.queries are refused with 40003, pull queries do not count,
// and a closed push query frees its place.
func TestMaxPushQueries(t *testing.T) {
	te, err := NewTestEngine(map[string]string{props.MaxPushQueries: "2"})
	if err != nil {
		t.Fatal(err)
	}
	defer te.Close()
	mustRun(t, te, `CREATE STREAM s (id INT KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	push := func() (api.RowStream, error) {
		return te.Query(context.Background(), "SELECT * FROM s EMIT CHANGES;", nil, nil)
	}
	first, err := push()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := push(); err != nil {
		t.Fatal(err)
	}
	pull, err := te.Query(context.Background(), "SELECT * FROM s;", nil, nil)
	if err != nil {
		t.Fatalf("a pull query at the push limit: %v", err)
	}
	pull.Close()
	_, err = push()
	var em *api.ErrorMessage
	if !errors.As(err, &em) || em.ErrorCode != api.CodeMaxPushQueries || em.Message != maxPushQueriesMessage {
		t.Fatalf("third push query with a limit of 2: %v, want 40003 %q", err, maxPushQueriesMessage)
	}
	first.Close()
	if _, err := push(); err != nil {
		t.Errorf("push query after closing one: %v", err)
	}
}
