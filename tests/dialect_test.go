package tests

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCustomTypesAndRound goes through /ksql: CREATE TYPE, a stream whose
// columns use it, a query with ROUND(x, 2) and a CAST to the type; after
// a restart the type is still registered (it was replayed from the
// command topic) and DROP TYPE removes it.
func TestCustomTypesAndRound(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	n.mustKsql(`CREATE TYPE ADDRESS AS STRUCT<number INTEGER, street VARCHAR>;
CREATE STREAM people (id VARCHAR KEY, home ADDRESS, score DOUBLE) WITH (KAFKA_TOPIC='people', VALUE_FORMAT='JSON', PARTITIONS=1);
CREATE STREAM rounded AS SELECT id, ROUND(score, 2) AS r, TRUNC(score, 1) AS t, CAST(home AS ADDRESS) AS h FROM people;`)
	produce(t, n.Kafka, "people", "ann", `{"HOME":{"NUMBER":7,"STREET":"Elm"},"SCORE":3.14159}`)
	assertRecords(t, canonicalJSON(t, consume(t, n.Kafka, "ROUNDED", 1)),
		[]string{`ann={"H":{"NUMBER":7,"STREET":"Elm"},"R":3.14,"T":3.1}`})

	n.restart()
	if got := showTypes(t, n); got != `{"ADDRESS":{"fields":[{"name":"NUMBER","schema":{"fields":null,"memberSchema":null,"type":"INTEGER"}},{"name":"STREET","schema":{"fields":null,"memberSchema":null,"type":"STRING"}}],"memberSchema":null,"type":"STRUCT"}}` {
		t.Fatalf("SHOW TYPES after restart: %s", got)
	}
	n.mustKsql(`DROP TYPE ADDRESS;`)
	if got := showTypes(t, n); got != `{}` {
		t.Fatalf("SHOW TYPES after DROP TYPE: %s", got)
	}
	status, v := n.ksql(`CREATE STREAM more (id VARCHAR KEY, home ADDRESS) WITH (KAFKA_TOPIC='people', VALUE_FORMAT='JSON');`, nil)
	if status != 400 || !strings.Contains(jsonText(t, v), "unknown type ADDRESS") {
		t.Fatalf("a dropped type is still usable: %d %v", status, v)
	}
}

// showTypes returns the types object of SHOW TYPES' type_list entity.
func showTypes(t *testing.T, n *node) string {
	ents, _ := n.mustKsql("SHOW TYPES;").([]any)
	if len(ents) != 1 {
		t.Fatalf("SHOW TYPES answered %v", ents)
	}
	ent, _ := ents[0].(map[string]any)
	if ent["@type"] != "type_list" {
		t.Fatalf("SHOW TYPES entity %v", ent)
	}
	return jsonText(t, ent["types"])
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	js, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(js)
}
