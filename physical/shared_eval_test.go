package physical_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
)

type entryLog struct{ entries []string }

func (l *entryLog) Log(e *physical.LogEntry) { l.entries = append(l.entries, e.Message) }

// TestFilterProjectShare: a WHERE and the SELECT after it compute the
// subexpressions they repeat once per row (COUNTED counts its calls),
// lazily (a row the WHERE drops early does not call FAILS), and a shared
// function error is logged by the column that uses it, as unshared.
func TestFilterProjectShare(t *testing.T) {
	calls := map[string]int{}
	reg := functions.NewRegistry()
	for _, name := range []string{"COUNTED", "FAILS"} {
		reg.MustAddScalar(functions.ScalarDef{Name: name, Category: functions.CatString, Description: "a test function",
			Overloads: []functions.Overload{{Sig: name + "(STRING s) STRING", Fn: func(a []any) (any, error) {
				calls[name]++
				if name == "FAILS" {
					return nil, errors.New("no " + a[0].(string))
				}
				return a[0], nil
			}}}})
	}
	p := planner.New(planner.NewCatalog(), reg, planner.Defaults{})
	stmts, err := parser.Parse("CREATE STREAM s (k STRING KEY, v STRING) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);" +
		"CREATE STREAM o AS SELECT k, COUNTED(v) AS c, LEN(COUNTED(v)) AS l, FAILS(v) AS f FROM s " +
		"WHERE COUNTED(v) <> 'skip' AND FAILS(v) IS NULL EMIT CHANGES;")
	if err != nil {
		t.Fatal(err)
	}
	src, err := p.CreateSource(stmts[0].(*ast.CreateSource))
	if err != nil {
		t.Fatal(err)
	}
	p.Catalog.Put(src)
	plan, err := p.PlanCreateAs(stmts[1].(*ast.CreateAsSelect))
	if err != nil {
		t.Fatal(err)
	}
	topo, err := physical.Build(plan, physical.Options{AppID: "app"})
	if err != nil {
		t.Fatal(err)
	}
	emit, log := &copyingRecorder{}, &entryLog{}
	task, err := topo.NewTask(0, &physical.TaskEnv{Emit: emit, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range []string{"x", "skip", "yz"} {
		rec := &physical.InRecord{Topic: "s", Offset: int64(i), Key: []byte("k"), Value: []byte(`{"V":"` + v + `"}`), Timestamp: int64(i)}
		if err := task.Process(rec); err != nil {
			t.Fatal(err)
		}
	}
	// Unshared: COUNTED 3 + 1 + 3 calls, FAILS 2 + 0 + 2.
	if calls["COUNTED"] != 3 || calls["FAILS"] != 2 {
		t.Errorf("calls %v, want COUNTED 3 (one a row), FAILS 2 (none for the row the WHERE drops first)", calls)
	}
	var got []string
	for _, r := range emit.recs {
		got = append(got, string(r.Value))
	}
	if want := `{"C":"x","L":1,"F":null} {"C":"yz","L":2,"F":null}`; strings.Join(got, " ") != want {
		t.Errorf("values %q, want %s", got, want)
	}
	// The WHERE has no function error log; the column F logs its call's.
	want := []string{"Error computing F: Error computing FAILS: no x", "Error computing F: Error computing FAILS: no yz"}
	if strings.Join(log.entries, "|") != strings.Join(want, "|") {
		t.Errorf("log %q, want %q", log.entries, want)
	}
}
