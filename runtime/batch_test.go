package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime/props"
)

func statementErr(t *testing.T, err error) *api.StatementError {
	t.Helper()
	var se *api.StatementError
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T), want a statement_error", err, err)
	}
	return se
}

// TestBatchSyntaxErrorRunsNothing is issue 9.14: a syntax error in the
// second statement of a request runs nothing, not even the first.
func TestBatchSyntaxErrorRunsNothing(t *testing.T) {
	te, err := NewTestEngine(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer te.Close()
	before, _ := te.Catalog()
	_, err = te.ExecuteStatement(`CREATE STREAM s (v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);
		CREATE STREM t (v INT) WITH (KAFKA_TOPIC='t', VALUE_FORMAT='JSON', PARTITIONS=1);`, nil)
	se := statementErr(t, err)
	if se.ErrorCode != api.CodeBadStatement || len(se.Entities) != 0 || !strings.HasPrefix(se.StatementText, "CREATE STREM") {
		t.Errorf("batch with a bad second statement: %+v", se)
	}
	if srcs, _ := te.Catalog(); len(srcs) != len(before) {
		t.Errorf("the first statement ran: catalog has %d sources, had %d", len(srcs), len(before))
	}
}

// TestBatchScopes: statements parsed ahead still see the variables and
// custom types that statements before them define.
func TestBatchScopes(t *testing.T) {
	te, err := NewTestEngine(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer te.Close()
	mustRun(t, te, `DEFINE topic_name = 'from_var';
		CREATE TYPE pt AS STRUCT<x INT, y INT>;
		CREATE STREAM s (p pt) WITH (KAFKA_TOPIC='${topic_name}', VALUE_FORMAT='JSON', PARTITIONS=1);
		UNDEFINE topic_name;`)
	ents := mustRun(t, te, "DESCRIBE s;")
	if d := fmt.Sprint(ents[0]); !strings.Contains(d, "from_var") || !strings.Contains(d, "STRUCT [{X {INTEGER") {
		t.Fatalf("DESCRIBE s after the batch: %s", d)
	}
	_, err = te.ExecuteStatement("DROP TYPE pt; CREATE STREAM v (p pt) WITH (KAFKA_TOPIC='v', VALUE_FORMAT='JSON', PARTITIONS=1);", nil)
	if se := statementErr(t, err); !strings.Contains(se.Message, "unknown type PT") || len(se.Entities) != 0 {
		t.Errorf("a type used after DROP TYPE in the same request: %+v", se)
	}
	_, err = te.ExecuteStatement("DEFINE a = 'x'; UNDEFINE a; CREATE STREAM u (v INT) WITH (KAFKA_TOPIC='${a}', VALUE_FORMAT='JSON', PARTITIONS=1);", nil)
	if se := statementErr(t, err); len(se.Entities) != 0 {
		t.Errorf("a variable used after UNDEFINE: %+v", se)
	}
}

// TestSelectOnKsqlEndpoint is issue 9.15: a well-formed SELECT on /ksql is
// 40002 and runs nothing before it; a malformed one is its syntax error
// with a position.
func TestSelectOnKsqlEndpoint(t *testing.T) {
	te, err := NewTestEngine(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer te.Close()
	before, _ := te.Catalog()
	_, err = te.ExecuteStatement("CREATE STREAM s (v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1); SELECT * FROM s EMIT CHANGES;", nil)
	if se := statementErr(t, err); se.ErrorCode != api.CodeQueryEndpoint {
		t.Errorf("SELECT in a batch: %+v", se)
	}
	if srcs, _ := te.Catalog(); len(srcs) != len(before) {
		t.Errorf("the CREATE before the SELECT ran")
	}
	_, err = te.ExecuteStatement("SELECT * FROM s WHERE;", nil)
	se := statementErr(t, err)
	if se.ErrorCode != api.CodeBadStatement || !strings.Contains(se.Message, "line 1:") || strings.Contains(se.Message, "/query") {
		t.Errorf("malformed SELECT on /ksql: %+v", se)
	}
}

// TestQueryRunsOneStatement is issue 9.16: /query with two statements is
// an error, not the first one run and the rest dropped.
func TestQueryRunsOneStatement(t *testing.T) {
	te, err := NewTestEngine(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer te.Close()
	mustRun(t, te, "CREATE STREAM s (v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);")
	_, err = te.Query(context.Background(), "SELECT * FROM s; DROP STREAM s;", nil, nil)
	if se := statementErr(t, err); se.Message != "Expected exactly one KSQL statement; found 2 instead" {
		t.Errorf("two statements on /query: %+v", se)
	}
}

// TestBatchStatementLimit: a request of more statements than
// sqlstream.request.max.statements (default 1000) is refused whole
// before any is parsed, with a 40000 error naming the limit; one at the
// limit runs.
func TestBatchStatementLimit(t *testing.T) {
	te, err := NewTestEngine(map[string]string{props.MaxStatements: "3"})
	if err != nil {
		t.Fatal(err)
	}
	defer te.Close()
	_, err = te.ExecuteStatement(strings.Repeat("SHOW STREAMS;", 4), nil)
	var em *api.ErrorMessage
	if !errors.As(err, &em) || em.ErrorCode != api.CodeBadRequest ||
		!strings.Contains(em.Message, "holds 4 statements, more than the limit of 3 (server property sqlstream.request.max.statements)") {
		t.Fatalf("4 statements: %v", err)
	}
	if _, err := te.ExecuteStatement(strings.Repeat("SHOW STREAMS;", 3), nil); err != nil {
		t.Fatalf("3 statements: %v", err)
	}
	def, err := NewTestEngine(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer def.Close()
	if _, err := def.ExecuteStatement(strings.Repeat("SHOW STREAMS;", props.DefaultMaxStatements+1), nil); !errors.As(err, &em) {
		t.Fatalf("%d statements: %v", props.DefaultMaxStatements+1, err)
	}
}
