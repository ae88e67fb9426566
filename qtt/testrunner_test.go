package qtt

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadRunnerTest(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sql := write("s.sql", "CREATE STREAM A (ID INT) WITH (kafka_topic='a', value_format='JSON');\n-- done\n")
	in := write("in.json", `{"inputs": [{"topic": "a", "key": null, "value": {"ID": 1.50}, "timestamp": 7,
		"window": {"start": 0, "end": 10, "type": "time"}}]}`)
	out := write("out.json", `{"outputs": [{"topic": "B", "value": null}]}`)

	rt, err := ReadRunnerTest(sql, in, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rt.Statements) != 1 || !strings.HasPrefix(rt.Statements[0], "CREATE STREAM A") {
		t.Fatalf("statements = %q", rt.Statements)
	}
	r := rt.Inputs[0]
	if r.Topic != "a" || *r.Timestamp != 7 || r.Window.End != 10 || r.Value.(map[string]any)["ID"] != json.Number("1.50") {
		t.Fatalf("input = %+v", r)
	}
	if len(rt.Outputs) != 1 || rt.Outputs[0].Value != nil {
		t.Fatalf("outputs = %+v", rt.Outputs)
	}
	if v := rt.Variant("s.sql"); v.ID() != "s.sql/s.sql" || len(v.Inputs) != 1 {
		t.Fatalf("variant = %+v", v)
	}
	if rt, err := ReadRunnerTest(sql, "", out); err != nil || rt.Inputs != nil {
		t.Fatalf("without inputs: %v %+v", err, rt)
	}

	errs := []struct{ sql, in, out, want string }{
		{write("empty.sql", "-- nothing\n;"), "", out, "no statements"},
		{sql, write("bad.json", "{\"inputs\": [\n  {\"topic\": 1}]}"), out, "bad.json:2:"},
		{sql, in, write("ts.json", `{"outputs": [{"topic": "B", "timestamp": "x"}]}`), "ts.json"},
		{sql, in, filepath.Join(dir, "missing.json"), "no such file"},
	}
	for _, e := range errs {
		if _, err := ReadRunnerTest(e.sql, e.in, e.out); err == nil || !strings.Contains(err.Error(), e.want) {
			t.Errorf("ReadRunnerTest(%s, %s, %s) = %v, want an error containing %q", e.sql, e.in, e.out, err, e.want)
		}
	}
}
