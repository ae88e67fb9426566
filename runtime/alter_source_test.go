package runtime_test

import (
	"testing"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime"
)

// TestDescribeAfterAlter: DESCRIBE EXTENDED of an altered stream shows
// the new column and, as ksqlDB's DdlCommandExec records it, the
// statement that created the stream with each ALTER on its own line
// after it.
func TestDescribeAfterAlter(t *testing.T) {
	eng, err := runtime.NewTestEngine(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	const create = "CREATE STREAM a (id INT KEY, col1 INT) WITH (kafka_topic='a', value_format='JSON', partitions=1)"
	const alter1 = "ALTER STREAM a ADD COLUMN col2 INT"
	const alter2 = "ALTER STREAM a ADD col3 STRING"
	for _, sql := range []string{create + ";", alter1 + ";", alter2 + ";"} {
		if _, err := eng.ExecuteStatement(sql, nil); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	ents, err := eng.ExecuteStatement("DESCRIBE a EXTENDED;", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 {
		t.Fatalf("DESCRIBE answered %d entities", len(ents))
	}
	d, ok := ents[0].(api.SourceDescriptionEntity)
	if !ok {
		t.Fatalf("DESCRIBE answered %T", ents[0])
	}
	if want := create + "\n" + alter1 + "\n" + alter2; d.SourceDescription.Statement != want {
		t.Errorf("statement:\n got %q\nwant %q", d.SourceDescription.Statement, want)
	}
	var names []string
	for _, f := range d.SourceDescription.Fields {
		names = append(names, f.Name)
	}
	if len(names) != 4 || names[2] != "COL2" || names[3] != "COL3" {
		t.Errorf("fields %v, want ID, COL1, COL2, COL3", names)
	}
}
