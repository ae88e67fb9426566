package nexmark

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// TestProtobufDecodes compiles each ProtoSchema with protocompile (the
// well-known Timestamp resolved by it) and reads the hand-encoded
// payloads back as dynamic messages.
func TestProtobufDecodes(t *testing.T) {
	g, _ := NewGenerator(Config{Seed: 5, Rate: 1000})
	descs := map[Kind]protoreflect.MessageDescriptor{}
	for k := KindPerson; k <= KindSide; k++ {
		c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
			Accessor: protocompile.SourceAccessorFromMap(map[string]string{"n.proto": ProtoSchema(k)})})}
		files, err := c.Compile(context.Background(), "n.proto")
		if err != nil {
			t.Fatalf("%s schema does not compile: %v\n%s", k, err, ProtoSchema(k))
		}
		descs[k] = files[0].Messages().Get(0)
	}
	evs := []Event{g.Side(3)}
	for n := range int64(200) {
		evs = append(evs, g.Event(n))
	}
	for _, ev := range evs {
		m := dynamicpb.NewMessage(descs[ev.Kind])
		if err := proto.Unmarshal(AppendProtobuf(nil, ev), m); err != nil {
			t.Fatalf("event %d (%s): %v", ev.Number, ev.Kind, err)
		}
		for i, f := range schemaFields(ev.Kind) {
			got := m.Get(descs[ev.Kind].Fields().ByName(protoreflect.Name(f.name)))
			var v any
			switch f.typ {
			case fieldLong:
				v = got.Int()
			case fieldString:
				v = got.String()
			case fieldTimestamp:
				ts := got.Message()
				secs := ts.Get(ts.Descriptor().Fields().ByName("seconds")).Int()
				nanos := ts.Get(ts.Descriptor().Fields().ByName("nanos")).Int()
				v = secs*1000 + nanos/1e6
			}
			if want := fieldValues(ev)[i]; v != want {
				t.Fatalf("event %d (%s) %s = %#v, want %#v", ev.Number, ev.Kind, f.name, v, want)
			}
		}
	}
}

// TestJSONSRPayloadsMatchTheirSchema: every payload is a JSON object
// with exactly the schema's properties, of the schema's JSON types.
func TestJSONSRPayloadsMatchTheirSchema(t *testing.T) {
	g, _ := NewGenerator(Config{Seed: 5, Rate: 1000})
	for n := range int64(100) {
		ev := g.Event(n)
		var schema struct {
			Properties map[string]struct{ Type string } `json:"properties"`
			Required   []string                         `json:"required"`
		}
		if err := json.Unmarshal([]byte(JSONSchema(ev.Kind)), &schema); err != nil {
			t.Fatalf("%s schema: %v", ev.Kind, err)
		}
		var payload map[string]any
		if err := json.Unmarshal(AppendJSONSR(nil, ev), &payload); err != nil {
			t.Fatalf("event %d: %v", n, err)
		}
		if len(payload) != len(schema.Properties) || len(schema.Required) != len(schema.Properties) {
			t.Fatalf("event %d: %d fields, schema has %d (%d required)", n, len(payload), len(schema.Properties), len(schema.Required))
		}
		for name, p := range schema.Properties {
			switch v := payload[name].(type) {
			case float64:
				if p.Type != "integer" || v != float64(int64(v)) {
					t.Fatalf("event %d %s = %v, schema type %s", n, name, v, p.Type)
				}
			case string:
				if p.Type != "string" {
					t.Fatalf("event %d %s is a string, schema type %s", n, name, p.Type)
				}
			default:
				t.Fatalf("event %d: %s missing or of type %T", n, name, v)
			}
		}
	}
}
