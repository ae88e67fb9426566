package rest

import (
	"reflect"
	"testing"
)

func TestParseRestFile(t *testing.T) {
	src := []byte(`{
  // comment
  "tests": [
    {"name": "t", "format": ["JSON", "PROTOBUF"],
     "statements": ["CREATE STREAM S (K INT KEY, A INT) WITH (kafka_topic='t', value_format='{FORMAT}');", "SELECT * FROM S EMIT CHANGES LIMIT 1;"],
     "inputConditions": {"waitForActivePushQuery": true},
     "responses": [{"admin": {"@type": "currentStatus"}}, {"query": []}]},
    {"name": "neg", "statements": ["SELECT * FROM NOPE;"], "expectedError": {"message": "no"}},
    {"name": "proto", "statements": ["SELECT 1 FROM S;"], "responses": [{"query": []}, {"queryProto": []}]}
  ]}`)
	if !isRestFile(src) || isRestFile([]byte(`{"tests":[{"name":"q","statements":[]}]}`)) {
		t.Fatal("isRestFile: want true for a file with responses only")
	}
	vs, err := parseRestFile("f.json", src)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Name    string
		Wait    bool
		Expect  bool
		Hard    []string
		NResp   int
		LastSQL string
	}
	var out []got
	for _, v := range vs {
		out = append(out, got{v.Name, v.WaitForHeader, v.Expect != nil, v.Hard, len(v.Responses), v.Statements[0]})
	}
	want := []got{
		{"t - JSON", true, false, nil, 2, "CREATE STREAM S (K INT KEY, A INT) WITH (kafka_topic='t', value_format='JSON');"},
		{"t - PROTOBUF", true, false, []string{"format PROTOBUF"}, 2, "CREATE STREAM S (K INT KEY, A INT) WITH (kafka_topic='t', value_format='PROTOBUF');"},
		{"neg", false, true, nil, 0, "SELECT * FROM NOPE;"},
		{"proto", false, false, []string{"PROTOBUF query responses"}, 2, "SELECT 1 FROM S;"},
	}
	for i := range out {
		if len(out[i].Hard) == 0 {
			out[i].Hard = nil
		}
	}
	if !reflect.DeepEqual(out, want) {
		t.Fatalf("got  %+v\nwant %+v", out, want)
	}
}
