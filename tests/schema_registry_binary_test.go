package tests

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/bufbuild/protocompile"
	hamba "github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// bid is the record the Avro producer writes (hamba/avro, a standard
// library, through franz-go's sr.Serde for the wire header).
type bid struct {
	Auction int64  `avro:"auction"`
	Price   int64  `avro:"price"`
	Bidder  string `avro:"bidder"`
}

const bidAvro = `{"type":"record","name":"Bid","fields":[{"name":"auction","type":"long"},{"name":"price","type":"long"},{"name":"bidder","type":"string"}]}`

const bidProto = "syntax = \"proto3\";\n\nmessage Bid {\n  int64 auction = 1;\n  int64 price = 2;\n  string bidder = 3;\n}\n"

// registerSchema registers text under subject with franz-go's client.
func registerSchema(t *testing.T, fake *srfake.Registry, subject string, typ sr.SchemaType, text string) int {
	t.Helper()
	cl, err := sr.NewClient(sr.URLs(fake.URL()))
	if err != nil {
		t.Fatal(err)
	}
	ss, err := cl.CreateSchema(timeoutCtx(t), subject, sr.Schema{Type: typ, Schema: text})
	if err != nil {
		t.Fatal(err)
	}
	return ss.ID
}

func produceValues(t *testing.T, n *node, topic string, vals ...[]byte) {
	t.Helper()
	kc := kafkaClient(t, n.Kafka)
	for _, v := range vals {
		if err := kc.ProduceSync(timeoutCtx(t), &kgo.Record{Topic: topic, Value: v}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}

// consumeValues reads count values of topic from the start.
func consumeValues(t *testing.T, n *node, topic string, count int) [][]byte {
	t.Helper()
	kc := kafkaClient(t, n.Kafka, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx := timeoutCtx(t)
	var got [][]byte
	for len(got) < count {
		fs := kc.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("consumed %d of %d records from %s", len(got), count, topic)
		}
		fs.EachRecord(func(r *kgo.Record) { got = append(got, r.Value) })
	}
	return got
}

// schemaOf returns the schema a record's header names, from the registry.
func schemaOf(t *testing.T, fake *srfake.Registry, value []byte) (int, sr.Schema) {
	t.Helper()
	var h sr.ConfluentHeader
	id, _, err := h.DecodeID(value)
	if err != nil {
		t.Fatalf("no wire header: %q", value)
	}
	cl, err := sr.NewClient(sr.URLs(fake.URL()))
	if err != nil {
		t.Fatal(err)
	}
	s, err := cl.SchemaByID(context.Background(), id)
	if err != nil {
		t.Fatalf("schema id %d: %v", id, err)
	}
	return id, s
}

// TestAvroExternalRegistry: a hamba/avro producer writes Bids, a stream
// inferred from bids-value reads them, CSAS writes AVRO a hamba/avro
// deserializer reads by the record's schema id, and a CTAS answers pull
// queries before and after a restart.
func TestAvroExternalRegistry(t *testing.T) {
	t.Parallel()
	fake, n := externalRegistry(t)
	createTopic(t, n.Kafka, "bids", 1)
	id := registerSchema(t, fake, "bids-value", sr.TypeAvro, bidAvro)
	var serde sr.Serde
	schema := hamba.MustParse(bidAvro)
	serde.Register(id, bid{}, sr.EncodeFn(func(v any) ([]byte, error) { return hamba.Marshal(schema, v) }))
	produceValues(t, n, "bids", serde.MustEncode(bid{1, 5, "ann"}), serde.MustEncode(bid{1, 50, "bob"}), serde.MustEncode(bid{2, 30, "cid"}))

	n.mustKsql(`CREATE STREAM bids WITH (KAFKA_TOPIC='bids', VALUE_FORMAT='AVRO');
	  SET 'auto.offset.reset'='earliest';
	  CREATE STREAM big WITH (KAFKA_TOPIC='big') AS SELECT auction, price FROM bids WHERE price > 10;
	  CREATE TABLE top AS SELECT auction, MAX(price) AS best FROM bids GROUP BY auction;`)
	type out struct {
		Auction *int64 `avro:"AUCTION"`
		Price   *int64 `avro:"PRICE"`
	}
	var got []string
	for _, v := range consumeValues(t, n, "big", 2) {
		_, s := schemaOf(t, fake, v)
		if s.Type != sr.TypeAvro {
			t.Fatalf("big's schema is %v", s.Type)
		}
		var o out
		if err := hamba.Unmarshal(hamba.MustParse(s.Schema), v[5:], &o); err != nil || o.Auction == nil || o.Price == nil {
			t.Fatalf("hamba/avro cannot read %q with %s: %+v %v", v, s.Schema, o, err)
		}
		got = append(got, fmt.Sprint(*o.Auction, "=", *o.Price))
	}
	sort.Strings(got)
	if fmt.Sprint(got) != "[1=50 2=30]" {
		t.Errorf("big: %v", got)
	}
	if !fake.SubjectExists("big-value") || !fake.SubjectExists("TOP-value") {
		t.Errorf("CSAS/CTAS registered no big-value / TOP-value")
	}
	eventually(t, "pull from top", func() error {
		return same(counts(t, n, "SELECT * FROM top WHERE auction = 1;"), map[string]string{"1": "50"})
	})
	n.restart()
	produceValues(t, n, "bids", serde.MustEncode(bid{2, 90, "dan"}))
	eventually(t, "pull from top after a restart", func() error {
		return same(counts(t, n, "SELECT * FROM top WHERE auction = 2;"), map[string]string{"2": "90"})
	})
}

// TestProtobufExternalRegistry: a protobuf-go (dynamicpb) producer writes
// Bids with the wire header and message index, a stream inferred from
// the registered .proto reads them, and CSAS writes PROTOBUF a dynamicpb
// deserializer reads by the record's schema id.
func TestProtobufExternalRegistry(t *testing.T) {
	t.Parallel()
	fake, n := externalRegistry(t)
	createTopic(t, n.Kafka, "pbids", 1)
	id := registerSchema(t, fake, "pbids-value", sr.TypeProtobuf, bidProto)
	md := compileMessage(t, bidProto)
	var h sr.ConfluentHeader
	encode := func(auction, price int64, bidder string) []byte {
		m := dynamicpb.NewMessage(md)
		m.Set(md.Fields().ByName("auction"), protoreflect.ValueOfInt64(auction))
		m.Set(md.Fields().ByName("price"), protoreflect.ValueOfInt64(price))
		m.Set(md.Fields().ByName("bidder"), protoreflect.ValueOfString(bidder))
		b, _ := h.AppendEncode(nil, id, []int{0})
		b, err := proto.MarshalOptions{}.MarshalAppend(b, m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	produceValues(t, n, "pbids", encode(1, 5, "ann"), encode(1, 50, "bob"), encode(2, 30, "cid"))

	n.mustKsql(`CREATE STREAM pbids WITH (KAFKA_TOPIC='pbids', VALUE_FORMAT='PROTOBUF');
	  SET 'auto.offset.reset'='earliest';
	  CREATE STREAM pbig WITH (KAFKA_TOPIC='pbig') AS SELECT auction, price, bidder FROM pbids WHERE price > 10;`)
	var got []string
	for _, v := range consumeValues(t, n, "pbig", 2) {
		_, s := schemaOf(t, fake, v)
		if s.Type != sr.TypeProtobuf {
			t.Fatalf("pbig's schema is %v: %s", s.Type, s.Schema)
		}
		omd := compileMessage(t, s.Schema)
		_, rest, _ := h.DecodeID(v)
		idx, payload, err := h.DecodeIndex(rest, 0)
		if err != nil || fmt.Sprint(idx) != "[0]" {
			t.Fatalf("pbig message index %v, %v", idx, err)
		}
		m := dynamicpb.NewMessage(omd)
		if err := proto.Unmarshal(payload, m); err != nil {
			t.Fatalf("protobuf-go cannot read %q: %v", v, err)
		}
		f := omd.Fields()
		got = append(got, fmt.Sprint(m.Get(f.ByName("AUCTION")).Int(), "=", m.Get(f.ByName("PRICE")).Int(), "/", m.Get(f.ByName("BIDDER")).String()))
	}
	sort.Strings(got)
	if fmt.Sprint(got) != "[1=50/bob 2=30/cid]" {
		t.Errorf("pbig: %v", got)
	}
}

// compileMessage compiles a .proto text and returns its first message.
func compileMessage(t *testing.T, text string) protoreflect.MessageDescriptor {
	t.Helper()
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
		Accessor: protocompile.SourceAccessorFromMap(map[string]string{"s.proto": text})})}
	fs, err := c.Compile(context.Background(), "s.proto")
	if err != nil {
		t.Fatalf("compile %q: %v", text, err)
	}
	return fs[0].Messages().Get(0)
}
