package tests

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	hamba "github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// TestPrintDecodesRegistryFormats: PRINT shows records franz-go's
// sr.Serde wrote (Avro through hamba/avro, Protobuf through protobuf-go,
// JSON Schema through encoding/json) decoded by the schema their ids name,
// as ksqlDB's deserializers print them (Avro's GenericData text, protobuf
// TextFormat's short form, compact JSON), not as hex; over REST and in the
// REPL.
func TestPrintDecodesRegistryFormats(t *testing.T) {
	t.Parallel()
	fake, n := externalRegistry(t)
	var serde sr.Serde
	avroID := registerSchema(t, fake, "pavro-value", sr.TypeAvro, bidAvro)
	avroSchema := hamba.MustParse(bidAvro)
	serde.Register(avroID, bid{}, sr.EncodeFn(func(v any) ([]byte, error) { return hamba.Marshal(avroSchema, v) }))

	protoID := registerSchema(t, fake, "pproto-value", sr.TypeProtobuf, bidProto)
	md := compileMessage(t, bidProto)
	m := dynamicpb.NewMessage(md)
	m.Set(md.Fields().ByName("auction"), protoreflect.ValueOfInt64(1))
	m.Set(md.Fields().ByName("price"), protoreflect.ValueOfInt64(5))
	m.Set(md.Fields().ByName("bidder"), protoreflect.ValueOfString("ann"))
	serde.Register(protoID, m, sr.EncodeFn(func(v any) ([]byte, error) { return proto.Marshal(v.(proto.Message)) }), sr.Index(0))

	jsonKeyID := registerSchema(t, fake, "pjson-key", sr.TypeJSON, `{"type":"string"}`)
	jsonID := registerSchema(t, fake, "pjson-value", sr.TypeJSON, srUserSchema)
	type jsonKey string
	serde.Register(jsonKeyID, jsonKey(""), sr.EncodeFn(func(v any) ([]byte, error) { return json.Marshal(string(v.(jsonKey))) }))
	serde.Register(jsonID, srUser{}, sr.EncodeFn(func(v any) ([]byte, error) { return json.Marshal(v) }))

	for _, c := range []struct {
		topic      string
		key, value []byte
		want       string
	}{
		{"pavro", []byte("b1"), serde.MustEncode(bid{1, 5, "ann"}), `key: b1, value: {"auction": 1, "price": 5, "bidder": "ann"}, partition: 0`},
		{"pproto", []byte("b1"), serde.MustEncode(m), `key: b1, value: auction: 1 price: 5 bidder: "ann", partition: 0`},
		{"pjson", serde.MustEncode(jsonKey("ann")), serde.MustEncode(srUser{"ann", 40}), `key: "ann", value: {"name":"ann","age":40}, partition: 0`},
	} {
		createTopic(t, n.Kafka, c.topic, 1)
		if err := kafkaClient(t, n.Kafka).ProduceSync(timeoutCtx(t), &kgo.Record{Topic: c.topic, Key: c.key, Value: c.value}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		print := "PRINT '" + c.topic + "' FROM BEGINNING LIMIT 1;"
		status, body := n.post("/query", "application/vnd.ksql.v1+json", map[string]any{"ksql": print})
		if status != 200 || !strings.Contains(strings.ReplaceAll(string(body), `\"`, `"`), c.want) {
			t.Errorf("REST %s: %d %s, want a line holding %s", print, status, body, c.want)
		}
		_, out, errOut := runBinaryInput(t, print+"\n", "repl", "--history", filepath.Join(t.TempDir(), "h"), "--server", n.URL)
		if !strings.Contains(out, c.want) {
			t.Errorf("REPL %s:\n%s\n%s\nwant a line holding %s", print, out, errOut, c.want)
		}
	}
}
