package api

import (
	"encoding/json"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

func strp(s string) *string { return &s }

// The expected bytes are ksqlDB's (CLI golden files and RestApiTest),
// compacted.
var entityCases = []struct {
	name string
	e    Entity
	want string
}{
	{"currentStatus", CommandStatusEntity{
		StatementText: "e", CommandID: "topic/1/create",
		CommandStatus: CommandStatus{Status: StatusSuccess, Message: "Success Message", QueryID: strp("CSAS_0")},
	}, `{"@type":"currentStatus","statementText":"e","commandId":"topic/1/create","commandStatus":{"status":"SUCCESS","message":"Success Message","queryId":"CSAS_0"},"commandSequenceNumber":0,"warnings":[]}`},
	{"currentStatus without query", &CommandStatusEntity{
		StatementText: "CREATE STREAM S (A INT) WITH (kafka_topic='t', value_format='JSON');", CommandID: "stream/S/create",
		CommandStatus: CommandStatus{Status: StatusSuccess, Message: "Stream created"}, CommandSequenceNumber: 2,
	}, `{"@type":"currentStatus","statementText":"CREATE STREAM S (A INT) WITH (kafka_topic='t', value_format='JSON');","commandId":"stream/S/create","commandStatus":{"status":"SUCCESS","message":"Stream created","queryId":null},"commandSequenceNumber":2,"warnings":[]}`},
	{"streams", StreamsList{StatementText: "e", Streams: []SourceInfo{
		{Type: SourceStream, Name: "B", Topic: "t2", KeyFormat: "KAFKA", ValueFormat: "AVRO"},
	}}, `{"@type":"streams","statementText":"e","streams":[{"type":"STREAM","name":"B","topic":"t2","keyFormat":"KAFKA","valueFormat":"AVRO","isWindowed":false}],"warnings":[]}`},
	{"tables empty", TablesList{StatementText: "SHOW TABLES;"},
		`{"@type":"tables","statementText":"SHOW TABLES;","tables":[],"warnings":[]}`},
	{"queries", QueriesList{StatementText: "e", Queries: []RunningQuery{{
		QueryString: "select * from t1 emit changes", Sinks: []string{"Test"}, SinkKafkaTopics: []string{"Test topic"},
		ID: "0", StatusCount: StatusCount{"ERROR": 2, "RUNNING": 1}, QueryType: QueryPush, State: "ERROR",
	}}}, `{"@type":"queries","statementText":"e","queries":[{"queryString":"select * from t1 emit changes","sinks":["Test"],"sinkKafkaTopics":["Test topic"],"id":"0","statusCount":{"RUNNING":1,"ERROR":2},"queryType":"PUSH","state":"ERROR"}],"warnings":[]}`},
	{"sourceDescription", SourceDescriptionEntity{StatementText: "some sql", SourceDescription: SourceDescription{
		Name: "TestSource",
		Fields: FieldInfosOf(types.Schema{Columns: []types.Column{
			{Name: "ROWKEY", Type: types.StringType, NS: types.KeyNS},
			{Name: "f_5", Type: types.ArrayOf(types.StringType)},
			{Name: "f_7", Type: types.StructOf(types.Field{Name: "a", Type: types.DoubleType})},
			{Name: "d", Type: types.DecimalOf(10, 9)},
			{Name: "HEAD", Type: types.BytesType, NS: types.HeaderNS, HeaderKey: "abc"},
		}}),
		Type: SourceTable, Timestamp: "2000-01-01", Extended: true, KeyFormat: "kafka", ValueFormat: "avro",
		Topic: "kafka-topic", Partitions: 1, Replication: 1, Statement: "sql statement",
	}}, `{"@type":"sourceDescription","statementText":"some sql","sourceDescription":{"name":"TestSource","windowType":null,"readQueries":[],"writeQueries":[],` +
		`"fields":[{"name":"ROWKEY","schema":{"type":"STRING","fields":null,"memberSchema":null},"type":"KEY"},` +
		`{"name":"f_5","schema":{"type":"ARRAY","fields":null,"memberSchema":{"type":"STRING","fields":null,"memberSchema":null}}},` +
		`{"name":"f_7","schema":{"type":"STRUCT","fields":[{"name":"a","schema":{"type":"DOUBLE","fields":null,"memberSchema":null}}],"memberSchema":null}},` +
		`{"name":"d","schema":{"type":"DECIMAL","fields":null,"memberSchema":null,"parameters":{"precision":10,"scale":9}}},` +
		`{"name":"HEAD","schema":{"type":"BYTES","fields":null,"memberSchema":null},"headerKey":"abc","type":"HEADER"}],` +
		`"type":"TABLE","timestamp":"2000-01-01","statistics":"","errorStats":"","extended":true,"keyFormat":"kafka","valueFormat":"avro",` +
		`"topic":"kafka-topic","partitions":1,"replication":1,"statement":"sql statement","queryOffsetSummaries":[],"sourceConstraints":[],` +
		`"clusterStatistics":[],"clusterErrorStats":[]},"warnings":[]}`},
	{"properties", PropertiesList{StatementText: "e", Properties: []Property{
		{Name: "k1", Scope: "KSQL", Value: ptr("1"), Level: "SERVER"},
		{Name: "k2", Scope: "KSQL", Level: "SERVER"},
	}}, `{"@type":"properties","statementText":"e","properties":[{"name":"k1","scope":"KSQL","value":"1","editable":false,"level":"SERVER"},{"name":"k2","scope":"KSQL","value":null,"editable":false,"level":"SERVER"}],"overwrittenProperties":[],"defaultProperties":[],"warnings":[]}`},
	{"type_list", TypeList{StatementText: "statement", Types: map[string]SchemaInfo{
		"typeC": SchemaInfoOf(types.DecimalOf(10, 9)),
	}}, `{"@type":"type_list","statementText":"statement","types":{"typeC":{"type":"DECIMAL","fields":null,"memberSchema":null,"parameters":{"precision":10,"scale":9}}},"warnings":[]}`},
	{"describe_function", FunctionDescriptionList{StatementText: "DESCRIBE FUNCTION foo;", Name: "FOO", Description: "d",
		Author: "Andy", Version: "v1.1.0", Path: "some.jar", Type: FunctionScalar, Functions: []FunctionInfo{{
			Arguments:  []ArgumentInfo{{Name: "arg1", Type: "INT", Description: "a", IsVariadic: true}},
			ReturnType: "LONG", Description: "f", ArgumentTypes: []string{"INT"},
		}},
	}, `{"@type":"describe_function","statementText":"DESCRIBE FUNCTION foo;","name":"FOO","description":"d","author":"Andy","version":"v1.1.0","path":"some.jar","functions":[{"arguments":[{"name":"arg1","type":"INT","description":"a","isVariadic":true}],"returnType":"LONG","description":"f","argumentTypes":["INT"]}],"type":"SCALAR","warnings":[]}`},
	{"terminate_query", TerminateQueryEntity{StatementText: "statementText", QueryID: "queryId", WasTerminated: true,
		Warnings: []Warning{{Message: "oops"}}},
		`{"@type":"terminate_query","statementText":"statementText","queryId":"queryId","wasTerminated":true,"warnings":[{"message":"oops"}]}`},
	{"kafka_topics", KafkaTopicsList{StatementText: "SHOW TOPICS;", Topics: []KafkaTopicInfo{{Name: "t<1>", ReplicaInfo: []int{1, 1}}}},
		`{"@type":"kafka_topics","statementText":"SHOW TOPICS;","topics":[{"name":"t<1>","replicaInfo":[1,1]}],"warnings":[]}`},
	{"function_names", FunctionNameList{StatementText: "SHOW FUNCTIONS;", Functions: []SimpleFunctionInfo{{Name: "ABS", Type: FunctionScalar, Category: "MATHEMATICAL"}}},
		`{"@type":"function_names","statementText":"SHOW FUNCTIONS;","functions":[{"name":"ABS","type":"SCALAR","category":"MATHEMATICAL"}],"warnings":[]}`},
	{"variables", VariablesList{StatementText: "SHOW VARIABLES;", Variables: []Variable{{Name: "a", Value: "1"}}},
		`{"@type":"variables","statementText":"SHOW VARIABLES;","variables":[{"name":"a","value":"1"}],"warnings":[]}`},
	{"warning_entity", WarningEntity{StatementText: "DROP STREAM IF EXISTS X;", Message: "Source X does not exist."},
		`{"@type":"warning_entity","statementText":"DROP STREAM IF EXISTS X;","message":"Source X does not exist.","warnings":[]}`},
	{"queryDescription", QueryDescriptionEntity{StatementText: "statement", QueryDescription: QueryDescription{
		ID: "id", StatementText: "statement", Sources: []string{"source"}, Sinks: []string{"sink"},
		Topology: "topology", ExecutionPlan: "executionPlan", QueryType: QueryPersistent,
		KsqlHostQueryStatus: map[string]string{"foo:123": "ERROR"}, ConsumerGroupID: "consumerGroupId", State: strp("ERROR"),
		QueryErrors: []QueryError{{Timestamp: 1596644936314, ErrorMessage: "error", Type: "SYSTEM"}},
	}}, `{"@type":"queryDescription","statementText":"statement","queryDescription":{"id":"id","statementText":"statement","windowType":null,"fields":[],"sources":["source"],"sinks":["sink"],"topology":"topology","executionPlan":"executionPlan","overriddenProperties":{},"ksqlHostQueryStatus":{"foo:123":"ERROR"},"queryType":"PERSISTENT","queryErrors":[{"timestamp":1596644936314,"errorMessage":"error","type":"SYSTEM"}],"tasksMetadata":[],"consumerGroupId":"consumerGroupId","state":"ERROR"},"warnings":[]}`},
}

func TestEntityEncoding(t *testing.T) {
	for _, c := range entityCases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Marshal(c.e)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Fatalf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// Decoding ksqlDB's bytes and encoding them again gives the same bytes,
// and picks the Go type named by "@type".
func TestDecodeEntitiesRoundTrip(t *testing.T) {
	var list []byte
	list = append(list, '[')
	for i, c := range entityCases {
		if i > 0 {
			list = append(list, ',')
		}
		list = append(list, c.want...)
	}
	list = append(list, ']')
	ents, err := DecodeEntities(list)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range ents {
		if e.EntityType() != entityCases[i].e.EntityType() {
			t.Fatalf("entity %d: @type %s, want %s", i, e.EntityType(), entityCases[i].e.EntityType())
		}
		got, err := Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != entityCases[i].want {
			t.Fatalf("entity %d round trip:\n%s\nwant\n%s", i, got, entityCases[i].want)
		}
	}
}

func TestDecodeUnknownEntity(t *testing.T) {
	ents, err := DecodeEntities([]byte(`[{"@type":"future_entity","statementText":"x","things":[]}]`))
	if err != nil {
		t.Fatal(err)
	}
	raw, ok := ents[0].(*RawEntity)
	if !ok || raw.Type != "future_entity" {
		t.Fatalf("got %#v", ents[0])
	}
}

func TestErrorEncoding(t *testing.T) {
	se := &StatementError{ErrorCode: CodeBadStatement, Message: "line 1:1: mismatched input", StatementText: "SELEC 1;",
		Entities: []Entity{StreamsList{StatementText: "SHOW STREAMS;"}}}
	got, err := Marshal(se)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"@type":"statement_error","error_code":40001,"message":"line 1:1: mismatched input","statementText":"SELEC 1;","entities":[{"@type":"streams","statementText":"SHOW STREAMS;","streams":[],"warnings":[]}]}`
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	back, ok := DecodeError(400, got).(*StatementError)
	if !ok || back.HTTPStatus() != 400 || len(back.Entities) != 1 || back.Entities[0].EntityType() != TypeStreams {
		t.Fatalf("decoded %#v", back)
	}
	gen, _ := Marshal(&ErrorMessage{ErrorCode: CodeBadRequest, Message: "No query with id x"})
	if string(gen) != `{"@type":"generic_error","error_code":40000,"message":"No query with id x"}` {
		t.Fatalf("generic error: %s", gen)
	}
	if em, ok := DecodeError(404, []byte("Not Found")).(*ErrorMessage); !ok || em.ErrorCode != 40400 {
		t.Fatalf("text body: %#v", em)
	}
}

func TestStreamedRowEncoding(t *testing.T) {
	h := QueryHeader{QueryID: "q1", Pull: true, Columns: []types.Column{
		{Name: "ID", Type: types.StringType, NS: types.KeyNS},
		{Name: "M", Type: types.MapOf(types.StringType, types.BigintType)},
	}}
	rows := []StreamedRow{
		{Header: &StreamedHeader{QueryID: h.QueryID, Schema: h.Schema()}},
		{Row: &StreamedData{Columns: []json.RawMessage{[]byte(`"a"`), nil}, Tombstone: true}},
		{FinalMessage: FinalLimitReached},
		{ErrorMessage: &ErrorMessage{ErrorCode: 50000, Message: "boom"}},
	}
	want := []string{
		`{"header":{"queryId":"q1","schema":"` + "`ID` STRING KEY, `M` MAP<STRING, BIGINT>" + `"}}`,
		`{"row":{"columns":["a",null],"tombstone":true}}`,
		`{"finalMessage":"Limit Reached"}`,
		`{"errorMessage":{"@type":"generic_error","error_code":50000,"message":"boom"}}`,
	}
	for i, r := range rows {
		got, err := Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want[i] {
			t.Fatalf("row %d: got %s want %s", i, got, want[i])
		}
	}
	meta, _ := Marshal(h.Metadata())
	if string(meta) != `{"queryId":"q1","columnNames":["ID","M"],"columnTypes":["STRING","MAP<STRING, BIGINT>"]}` {
		t.Fatalf("metadata: %s", meta)
	}
}

func TestVariablesDecoding(t *testing.T) {
	var req KsqlRequest
	err := json.Unmarshal([]byte(`{"ksql":"x","sessionVariables":{"a":"s","b":1.5,"c":true,"d":null}}`), &req)
	if err != nil {
		t.Fatal(err)
	}
	v := req.SessionVariables
	if v["a"] != "s" || v["b"] != "1.5" || v["c"] != "true" || v["d"] != "" {
		t.Fatalf("got %v", v)
	}
	if err := json.Unmarshal([]byte(`{"sessionVariables":{"a":[1]}}`), &req); err == nil {
		t.Fatal("want an error for a list value")
	}
}

// ptr is a pointer to v.
func ptr[T any](v T) *T { return &v }
