package format

import (
	"context"
	"testing"

	"github.com/bufbuild/protocompile"
	hamba "github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/sr"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

const printAvro = `{"type":"record","name":"Bid","fields":[
  {"name":"auction","type":"long"},
  {"name":"price","type":["null","double"]},
  {"name":"bidder","type":"string"},
  {"name":"tags","type":{"type":"array","items":"string"}},
  {"name":"m","type":{"type":"map","values":"int"}},
  {"name":"e","type":{"type":"enum","name":"Color","symbols":["RED","GREEN"]}},
  {"name":"b","type":"bytes"},
  {"name":"none","type":["null","string"]}]}`

type printBid struct {
	Auction int64          `avro:"auction"`
	Price   *float64       `avro:"price"`
	Bidder  string         `avro:"bidder"`
	Tags    []string       `avro:"tags"`
	M       map[string]int `avro:"m"`
	E       string         `avro:"e"`
	B       []byte         `avro:"b"`
	None    *string        `avro:"none"`
}

const printProto = `syntax = "proto3";
message Bid {
  int64 auction = 1;
  double price = 2;
  string bidder = 3;
  repeated string tags = 4;
  map<string, int32> m = 5;
  Inner in = 6;
}
message Inner { int32 x = 1; }
`

// TestRenderRegistryRecord: PRINT shows records written by Confluent-wire
// producers (franz-go's sr.Serde with hamba/avro, protobuf-go, encoding/
// json) as ksqlDB's deserializers print them.
func TestRenderRegistryRecord(t *testing.T) {
	reg, fake := newFakeRegistry(t)
	cl, err := sr.NewClient(sr.URLs(fake.URL()))
	if err != nil {
		t.Fatal(err)
	}
	register := func(subject string, typ sr.SchemaType, text string) int {
		ss, err := cl.CreateSchema(context.Background(), subject, sr.Schema{Type: typ, Schema: text})
		if err != nil {
			t.Fatal(err)
		}
		return ss.ID
	}
	var serde sr.Serde
	avroID := register("bids-value", sr.TypeAvro, printAvro)
	avroSchema := hamba.MustParse(printAvro)
	serde.Register(avroID, printBid{}, sr.EncodeFn(func(v any) ([]byte, error) { return hamba.Marshal(avroSchema, v) }))
	price := 2.5
	avroRec := serde.MustEncode(printBid{Auction: 1, Price: &price, Bidder: "ann \"x\"\n", Tags: []string{"a", "b"},
		M: map[string]int{"k": 1}, E: "GREEN", B: []byte{1, 'A'}})

	protoID := register("pbids-value", sr.TypeProtobuf, printProto)
	bid, inner := printMessages(t)
	m := dynamicpb.NewMessage(bid)
	set := func(m *dynamicpb.Message, name string, v protoreflect.Value) {
		m.Set(m.Descriptor().Fields().ByName(protoreflect.Name(name)), v)
	}
	set(m, "auction", protoreflect.ValueOfInt64(1))
	set(m, "bidder", protoreflect.ValueOfString("ann"))
	tags := m.Mutable(bid.Fields().ByName("tags")).List()
	tags.Append(protoreflect.ValueOfString("a"))
	tags.Append(protoreflect.ValueOfString("b"))
	mm := m.Mutable(bid.Fields().ByName("m")).Map()
	mm.Set(protoreflect.ValueOfString("b").MapKey(), protoreflect.ValueOfInt32(2))
	mm.Set(protoreflect.ValueOfString("a").MapKey(), protoreflect.ValueOfInt32(1))
	in := dynamicpb.NewMessage(inner)
	set(in, "x", protoreflect.ValueOfInt32(3))
	set(m, "in", protoreflect.ValueOfMessage(in))
	protoSerde := func(indexes []int, msg proto.Message) []byte {
		var s sr.Serde
		s.Register(protoID, msg, sr.EncodeFn(func(v any) ([]byte, error) { return proto.Marshal(v.(proto.Message)) }), sr.Index(indexes...))
		return s.MustEncode(msg)
	}

	jsonID := register("users-value", sr.TypeJSON, `{"type":"object"}`)
	var jserde sr.Serde
	jserde.Register(jsonID, map[string]any{}, sr.EncodeFn(func(any) ([]byte, error) { return []byte(`{ "name": "ann",  "age": 40 }`), nil }))

	for _, c := range []struct {
		what string
		b    []byte
		want string
		ok   bool
	}{
		{"avro", avroRec, `{"auction": 1, "price": 2.5, "bidder": "ann \"x\"\n", "tags": ["a", "b"], "m": {"k": 1}, "e": "GREEN", "b": {"bytes": "\u0001A"}, "none": null}`, true},
		{"protobuf", protoSerde([]int{0}, m), `auction: 1 bidder: "ann" tags: "a" tags: "b" m { key: "a" value: 1 } m { key: "b" value: 2 } in { x: 3 }`, true},
		{"protobuf second message", protoSerde([]int{1}, in), `x: 3`, true},
		{"json_sr", jserde.MustEncode(map[string]any{}), `{"name":"ann","age":40}`, true},
		{"unknown id", append([]byte{0, 0, 0, 0x10, 0}, `{}`...), "", false},
		{"avro bytes that do not read", append(avroRec[:5:5], 0x80), "", false},
		{"not the wire format", []byte(`{"a":1}`), "", false},
	} {
		got, ok := RenderRegistryRecord(context.Background(), reg, c.b)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: %q %v, want %q %v", c.what, got, ok, c.want, c.ok)
		}
	}
	if _, ok := RenderRegistryRecord(context.Background(), nil, avroRec); ok {
		t.Error("rendered without a registry")
	}
}

func printMessages(t *testing.T) (protoreflect.MessageDescriptor, protoreflect.MessageDescriptor) {
	t.Helper()
	c := protocompile.Compiler{Resolver: &protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(map[string]string{"bid.proto": printProto})}}
	files, err := c.Compile(context.Background(), "bid.proto")
	if err != nil {
		t.Fatal(err)
	}
	ms := files[0].Messages()
	return ms.ByName("Bid"), ms.ByName("Inner")
}
