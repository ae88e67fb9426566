package runtime

import (
	"context"
	"testing"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/parser"
)

// TestReplayDropsRecordedQueryID: a CREATE … AS SELECT recorded while
// its WITH (QUERY_ID) was accepted (and ignored) replays without it under
// its recorded query id, now that a new one is refused as in ksqlDB.
func TestReplayDropsRecordedQueryID(t *testing.T) {
	te, err := NewTestEngine(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer te.Close()
	e := te.Engine
	if _, err := te.ExecuteStatement("CREATE STREAM s (id INT KEY, a INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);", nil); err != nil {
		t.Fatal(err)
	}
	csas := "CREATE STREAM x WITH (QUERY_ID='my_q') AS SELECT * FROM s;"
	if _, err := te.ExecuteStatement(csas, nil); err == nil {
		t.Fatal("a new CREATE … AS SELECT WITH (QUERY_ID) was accepted")
	}
	a := commandApplier{e}
	a.Lock()
	a.Apply(context.Background(), &command{Seq: 7, SQL: csas, QueryID: "CSAS_X_7", AppPrefix: e.names.AppPrefix()})
	a.Unlock()
	if _, ok := e.cat.Get("X"); !ok {
		t.Fatal("the recorded CSAS did not replay: X is missing")
	}
	if _, ok := e.queries["CSAS_X_7"]; !ok {
		t.Errorf("queries after replay: %v, want CSAS_X_7", e.queries)
	}
	stmts, err := parser.Parse("CREATE STREAM y (id INT KEY) WITH (QUERY_ID='q', kafka_topic='y', value_format='JSON'); INSERT INTO x WITH (QUERY_ID='i') SELECT * FROM s;")
	if err != nil {
		t.Fatal(err)
	}
	dropRecordedQueryID(stmts[0])
	dropRecordedQueryID(stmts[1])
	if got := stmts[0].(*ast.CreateSource).Props; len(got) != 2 || got[0].Name != "KAFKA_TOPIC" {
		t.Errorf("CREATE STREAM's properties after: %+v", got)
	}
	if got := stmts[1].(*ast.InsertInto).Props; len(got) != 1 || got[0].Name != "QUERY_ID" {
		t.Errorf("INSERT INTO keeps its QUERY_ID: %+v", got)
	}
}
