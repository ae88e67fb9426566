package rest

import (
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/qtt"
)

// j parses JSON test text into a JSON-ish value.
func j(t *testing.T, text string) any {
	t.Helper()
	v, err := qtt.DecodeJSON([]byte(text))
	if err != nil {
		t.Fatalf("bad JSON %q: %v", text, err)
	}
	return v
}

func TestCompareResponses(t *testing.T) {
	admin := actualResponse{Kind: "admin", Payload: map[string]any{
		"@type": "currentStatus", "commandId": "stream/`S`/create", "commandStatus": map[string]any{"status": "SUCCESS"}}}
	header := `{"header":{"queryId":"transient_T_1","schema":"` + "`ID` STRING KEY, `C` BIGINT" + `"}}`
	query := func(pull bool, elems ...string) actualResponse {
		return actualResponse{Kind: "query", Pull: pull, Payload: j(t, "["+strings.Join(elems, ",")+"]")}
	}
	proto := func(elems ...string) actualResponse { // a pull query asked for protobuf rows
		return actualResponse{Kind: "queryProto", Pull: true, Payload: j(t, "["+strings.Join(elems, ",")+"]")}
	}
	rowA, rowB := `{"row":{"columns":["a",1]}}`, `{"row":{"columns":["b",2.50]}}`
	cases := []struct {
		name     string
		expected string
		actual   []actualResponse
		want     string // "" passes; otherwise a substring of the first problem
	}{
		{"admin fields are a subset", `[{"admin":{"@type":"currentStatus","commandStatus":{"status":"SUCCESS"}}}]`,
			[]actualResponse{admin}, ""},
		{"admin type differs", `[{"admin":{"@type":"streams"}}]`,
			[]actualResponse{admin}, `responses[0]->admin->@type: expected "streams", got "currentStatus"`},
		{"kind differs", `[{"query":[]}]`,
			[]actualResponse{admin}, "expected a query response, got a admin response"},
		{"too few responses", `[{"admin":{}},{"admin":{}}]`,
			[]actualResponse{admin}, "responses[1]: missing, only 1 responses"},
		{"more actual than expected is fine", `[{"admin":{}}]`,
			[]actualResponse{admin, admin}, ""},
		{"numbers by value", `[{"query":[{"header":{"schema":"` + "`ID` STRING KEY, `C` BIGINT" + `"}},{"row":{"columns":["a",1.0]}},{"row":{"columns":["b",2.5]}}]}]`,
			[]actualResponse{query(false, header, rowA, rowB)}, ""},
		{"schema whitespace", `[{"query":[{"header":{"schema":"` + "`ID`  STRING KEY,`C` BIGINT" + `"}}]}]`,
			[]actualResponse{query(true, header)}, ""},
		{"schema case kept", `[{"query":[{"header":{"schema":"` + "`id` STRING KEY, `C` BIGINT" + `"}}]}]`,
			[]actualResponse{query(true, header)}, "header->schema: expected"},
		{"starts_with", `[{"query":[{"header":{"queryId|starts_with":"transient_"}}]}]`,
			[]actualResponse{query(false, header)}, ""},
		{"starts_with mismatch", `[{"query":[{"header":{"queryId|starts_with":"SCALABLE_PUSH_QUERY"}}]}]`,
			[]actualResponse{query(false, header)}, `expected a string starting with "SCALABLE_PUSH_QUERY"`},
		{"element count", `[{"query":[{"header":{}},` + rowA + `]}]`,
			[]actualResponse{query(false, header)}, "2 elements expected, got 1"},
		{"push rows in order", `[{"query":[{"header":{}},` + rowB + `,` + rowA + `]}]`,
			[]actualResponse{query(false, header, rowA, rowB)}, `query[1]->row->columns: expected ["b",2.50], got ["a",1]`},
		{"pull rows in any order", `[{"query":[{"header":{}},` + rowB + `,` + rowA + `]}]`,
			[]actualResponse{query(true, header, rowA, rowB)}, ""},
		{"pull rows matched once each", `[{"query":[{"header":{}},` + rowA + `,` + rowA + `]}]`,
			[]actualResponse{query(true, header, rowA, rowB)}, "query[2]: no row matches"},
		{"tombstone must be there", `[{"query":[{"header":{}},{"row":{"columns":["a",1],"tombstone":true}}]}]`,
			[]actualResponse{query(false, header, rowA)}, `no field "tombstone"`},
		{"final message", `[{"query":[{"header":{}},{"finalMessage":"Limit Reached"}]}]`,
			[]actualResponse{query(false, header, `{"finalMessage":"Query Completed"}`)}, `finalMessage: expected "Limit Reached"`},
		{"queryProto rows compared as text", `[{"admin":{}},{"queryProto":[{"header":{"protoSchema":"p"}},{"row":"ID: 2\n"},{"row":"ID: 1\n"}]}]`,
			[]actualResponse{admin, proto(`{"header":{"queryId":"q","protoSchema":"p"}}`, `{"row":"ID: 1\n"}`, `{"row":"ID: 2\n"}`)}, ""},
		{"queryProto row text must match", `[{"admin":{}},{"queryProto":[{"header":{}},{"row":"ID: 1\n"}]}]`,
			[]actualResponse{admin, proto(`{"header":{}}`, `{"row":"ID: 3\n"}`)}, `queryProto[1]: no row matches`},
		{"queryProto response must be there", `[{"admin":{}},{"queryProto":[{"header":{}}]}]`,
			[]actualResponse{admin}, "missing, only 1 responses"},
		{"arrays inside columns compared whole", `[{"query":[{"header":{}},{"row":{"columns":[{"A":1}]}}]}]`,
			[]actualResponse{query(false, header, `{"row":{"columns":[{"A":1,"B":2}]}}`)}, "expected [{\"A\":1}]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var exp []map[string]any
			for _, e := range j(t, c.expected).([]any) {
				exp = append(exp, e.(map[string]any))
			}
			problems := compareResponses(exp, c.actual)
			switch {
			case c.want == "" && len(problems) > 0:
				t.Fatalf("unexpected problems: %q", problems)
			case c.want != "" && len(problems) == 0:
				t.Fatalf("passed, want a problem containing %q", c.want)
			case c.want != "" && !strings.Contains(problems[0], c.want):
				t.Fatalf("problem %q does not contain %q", problems[0], c.want)
			}
		})
	}
}

func TestSplitRestStatements(t *testing.T) {
	admin, queries, err := splitRestStatements([]string{"CREATE STREAM S (A INT) WITH (kafka_topic='t', format='JSON');",
		"INSERT INTO S (A) VALUES (1);", " select * from S;", "SELECT A FROM S EMIT CHANGES LIMIT 1;"})
	if err != nil || len(admin) != 2 || len(queries) != 2 {
		t.Fatalf("got admin %q, queries %q, err %v", admin, queries, err)
	}
	_, _, err = splitRestStatements([]string{"SELECT * FROM S;", "DROP STREAM S;"})
	if err == nil || !strings.Contains(err.Error(), "statement 2 follows a query") {
		t.Fatalf("got err %v, want one about statement 2", err)
	}
}
