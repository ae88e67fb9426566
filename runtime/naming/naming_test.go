package naming

import (
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/parser"
)

// TestNames: the application ids of new, recorded and legacy commands,
// and a prefix Kafka would refuse in topic names refused at the start,
// naming the properties to change.
func TestNames(t *testing.T) {
	n, err := New("", true, "svc_", "pq_")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ got, want string }{
		{n.AppID("CTAS_T_3"), "_confluent-ksql-svc_pq_CTAS_T_3"},
		{n.TransientAppID("transient_X_1"), "_confluent-ksql-svc_transient_X_1"},
		{n.CommandAppID("", "CTAS_T_3"), "svc_query_CTAS_T_3"},
		{n.CommandAppID("svc_query_", "CTAS_T_3"), "svc_query_CTAS_T_3"},
		{strings.Join(n.Hidden(), " "), "_confluent-ksql-svc_pq_ svc_query_"},
		{CreateAs(ast.Table, "T", 3), "CTAS_T_3"},
		{CreateAs(ast.Stream, "S", 4), "CSAS_S_4"},
		{CST("T", 5), "CST_T_5"},
		{Insert(6), "INSERTQUERY_6"},
	} {
		if c.got != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
	if _, err := New("", false, "bad id", "query_"); err == nil || !strings.Contains(err.Error(), "ksql.service.id") {
		t.Errorf("illegal service id: %v", err)
	}
	if !OwnsSink("CST_T_1") || OwnsSink("INSERTQUERY_1") || OwnsSink("MY_QUERY") {
		t.Error("OwnsSink")
	}
}

// TestInsertQueryID: QUERY_ID is upper-cased; a reserved prefix or an
// illegal character is refused in ksqlDB's words.
func TestInsertQueryID(t *testing.T) {
	for _, c := range []struct{ sql, id, err string }{
		{"INSERT INTO s SELECT * FROM t;", "", ""},
		{"INSERT INTO s WITH (QUERY_ID='my_q1') SELECT * FROM t;", "MY_Q1", ""},
		{"INSERT INTO s WITH (QUERY_ID='csas_x') SELECT * FROM t;", "", "must not start with a reserved query ID prefix (INSERTQUERY_, CTAS_, CSAS_, CST_)"},
		{"INSERT INTO s WITH (QUERY_ID='a-b') SELECT * FROM t;", "", "may contain only alphanumeric characters and '_'. Got: 'a-b'"},
	} {
		stmts, err := parser.Parse(c.sql)
		if err != nil {
			t.Fatal(err)
		}
		id, _, err := InsertQueryID(stmts[0].(*ast.InsertInto))
		if id != c.id || (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: id %q, err %v; want %q, %q", c.sql, id, err, c.id, c.err)
		}
	}
}

// TestTransient: a push query's id says whether ksqlDB would have run it
// as a scalable push query.
func TestTransient(t *testing.T) {
	if id := Transient("S", false); !strings.HasPrefix(id, "transient_S_") {
		t.Errorf("transient id %s", id)
	}
	id := Transient("S", true)
	if !strings.HasPrefix(id, "SCALABLE_PUSH_QUERY_") || len(id) != len("SCALABLE_PUSH_QUERY_")+36 || id[len("SCALABLE_PUSH_QUERY_")+14] != '4' {
		t.Errorf("scalable push id %s (want a version 4 UUID)", id)
	}
}
