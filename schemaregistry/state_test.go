package schemaregistry

import "testing"

// TestFirstRecordWins: a later SCHEMA record that gives a taken version
// or a taken id to another schema is a lost race and is not applied; one
// that repeats the winner (a soft delete, a reasserted winner) is.
func TestFirstRecordWins(t *testing.T) {
	st := newState()
	identity := func(v schemaValue) string { return v.Schema }
	apply := func(subject string, ver, id int, schema string, deleted bool) applyResult {
		t.Helper()
		val := schemaValue{Subject: subject, Version: ver, ID: id, Schema: schema, Deleted: deleted}
		res, err := st.apply(schemaKey(subject, ver), mustJSON(val), identity)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if apply("s", 1, 1, `"int"`, false) != applied {
		t.Fatal("first record")
	}
	if apply("s", 1, 2, `"long"`, false) != conflict {
		t.Fatal("another id for a taken version")
	}
	if apply("s", 1, 1, `"long"`, false) != conflict || st.subjects["s"][1].Schema != `"int"` {
		t.Fatal("the same id and version for another schema (two racers picked both)")
	}
	if apply("u", 1, 1, `"long"`, false) != conflict {
		t.Fatal("a taken id for another schema")
	}
	if apply("u", 1, 1, `"int"`, false) != applied || st.idFor(`"int"`) != 1 {
		t.Fatal("the same schema under another subject shares the id")
	}
	if apply("s", 1, 1, `"int"`, true) != applied || len(st.versions("s", false)) != 0 {
		t.Fatal("a soft delete rewrites the winner's record")
	}
	if res, _ := st.apply(schemaKey("s", 1), nil, identity); res != applied || len(st.versions("s", true)) != 0 {
		t.Fatal("a tombstone removes the version")
	}
	if st.ids[1] == nil || st.ids[1].Subject != "u" {
		t.Fatalf("the id stays readable while subject u uses it: %+v", st.ids[1])
	}
	if res, err := st.apply([]byte(`{"keytype":"FUTURE_THING","magic":0}`), []byte(`{}`), identity); err != nil || res != ignored {
		t.Fatalf("an unknown key type is skipped: %v %v", res, err)
	}
	if _, err := st.apply([]byte(`not json`), nil, identity); err == nil {
		t.Fatal("an unreadable key is an error")
	}
}
