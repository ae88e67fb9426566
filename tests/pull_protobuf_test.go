package tests

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// TestPullProtobufResponse is issue 17's protobuf query answer through the
// binary: a pull query sent to /query with Accept:
// application/vnd.ksql.v1+protobuf answers ksqlDB's shape, a header with
// the .proto text of the rows (protoSchema) and each row as protobufBytes,
// which a standard protobuf library (protocompile + dynamicpb, not the
// server's code) decodes to the table's values.
func TestPullProtobufResponse(t *testing.T) {
	t.Parallel()
	n := startNode(t, "--config", writeConfig(t, "ksql.streams.auto.offset.reset=earliest\n"))
	n.mustKsql(`CREATE STREAM visits (id VARCHAR KEY, page VARCHAR) WITH (KAFKA_TOPIC='visits', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	produce(t, n.Kafka, "visits", "u1", `{"PAGE":"a"}`, "u1", `{"PAGE":"b"}`, "u2", `{"PAGE":"c"}`)
	n.mustKsql(`CREATE TABLE visits_per_user AS SELECT id, COUNT(*) AS n, COLLECT_LIST(page) AS pages FROM visits GROUP BY id EMIT CHANGES;`)
	if err := same(counts(t, n, "SELECT id, n FROM visits_per_user;"), map[string]string{"u1": "2", "u2": "1"}); err != nil {
		t.Fatalf("JSON pull query: %v", err)
	}

	elems := protobufQuery(t, n, "SELECT * FROM visits_per_user WHERE id = 'u1';")
	if len(elems) != 2 || elems[0].Header == nil || elems[1].Row == nil {
		t.Fatalf("want a header and one row, got %+v", elems)
	}
	md := compileRowMessage(t, elems[0].Header.ProtoSchema)
	msg := dynamicpb.NewMessage(md)
	if err := proto.Unmarshal(elems[1].Row.ProtobufBytes, msg); err != nil {
		t.Fatalf("row is not a message of the header's protoSchema: %v", err)
	}
	field := func(name string) protoreflect.Value { return msg.Get(md.Fields().ByName(protoreflect.Name(name))) }
	pages := field("PAGES").List()
	if field("ID").String() != "u1" || field("N").Int() != 2 || pages.Len() != 2 || pages.Get(0).String() != "a" || pages.Get(1).String() != "b" {
		t.Fatalf("decoded row %v, want ID u1, N 2, PAGES [a b]", msg)
	}
}

// protoElement is one element of a protobuf /query answer.
type protoElement struct {
	Header *struct {
		QueryID     string `json:"queryId"`
		ProtoSchema string `json:"protoSchema"`
	} `json:"header"`
	Row *struct {
		ProtobufBytes []byte `json:"protobufBytes"`
	} `json:"row"`
}

func protobufQuery(t *testing.T, n *node, sql string) []protoElement {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	defer cancel()
	resp, err := httpClient().Do(n.newRequest(ctx, "/query", "application/vnd.ksql.v1+protobuf", map[string]any{"ksql": sql}))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/vnd.ksql.v1+protobuf" {
		t.Fatalf("%s: %d %s: %s", sql, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	var elems []protoElement
	if err := json.Unmarshal(body, &elems); err != nil {
		t.Fatalf("%s: %v in %s", sql, err, body)
	}
	return elems
}

func compileRowMessage(t *testing.T, schema string) protoreflect.MessageDescriptor {
	t.Helper()
	c := protocompile.Compiler{Resolver: &protocompile.SourceResolver{
		Accessor: protocompile.SourceAccessorFromMap(map[string]string{"row.proto": schema})}}
	files, err := c.Compile(context.Background(), "row.proto")
	if err != nil {
		t.Fatalf("protoSchema does not compile: %v\n%s", err, schema)
	}
	md := files[0].Messages().ByName("ConnectDefault1")
	if md == nil {
		t.Fatalf("protoSchema has no ConnectDefault1:\n%s", schema)
	}
	return md
}
