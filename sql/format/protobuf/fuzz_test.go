package protobuf

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/sqlstream/sqlstream/sql/types"
)

// FuzzProtobufDecode feeds arbitrary payloads to the decoder of a schema
// with every type: it must never panic, and a row it accepts must encode
// and decode back to itself.
func FuzzProtobufDecode(f *testing.F) {
	cols := parseColumns(f, everyType)
	fields := columnFields(cols)
	schema, err := Schema(cols, Options{NullableRepresentation: NullableWrapper})
	if err != nil {
		f.Fatal(err)
	}
	md := compileMessage(f, schema, nil, "")
	dec, err := NewDecoder(schema, nil, cols, Options{})
	if err != nil {
		f.Fatal(err)
	}
	enc, err := NewEncoder(schema, nil, cols, Options{})
	if err != nil {
		f.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 7))
	for range 20 {
		row := randValue(r, types.StructOf(fields...), false).(*types.StructValue).Values
		b, err := proto.Marshal(toDynamic(f, md, fields, row))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0x0a, 0xff})
	f.Fuzz(func(t *testing.T, payload []byte) {
		row := make([]any, len(cols))
		if err := dec.Decode(payload, row); err != nil {
			return
		}
		out, err := enc.Encode(nil, row)
		if err != nil {
			t.Fatalf("decoded row %v does not encode: %v", row, err)
		}
		again := make([]any, len(cols))
		if err := dec.Decode(out, again); err != nil {
			t.Fatalf("our encoding %x does not decode: %v", out, err)
		}
		// Compared as bytes, so NaN and -0 count as themselves.
		if out2, err := enc.Encode(nil, again); err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("row %v encodes as %x, decodes as %v and encodes again as %x (%v)", row, out, again, out2, err)
		}
	})
}

// FuzzProtobufSchema feeds arbitrary schema text to inference: it must
// never panic, and the columns it infers must be readable and writable
// with that schema and printable as a schema of their own.
func FuzzProtobufSchema(f *testing.F) {
	for _, s := range []string{
		`syntax = "proto3"; message M { int32 a = 1; repeated string b = 2; map<string, M> c = 3; }`,
		`syntax = "proto3"; import "google/protobuf/wrappers.proto"; message M { google.protobuf.UInt32Value a = 1; oneof o { bytes b = 2; sint64 c = 3; } }`,
		`syntax = "proto2"; message M { optional fixed32 a = 1 [default = 3]; enum E { X = 1; } repeated E e = 2 [packed = true]; }`,
		`syntax = "proto3"; import "confluent/type/decimal.proto"; import "google/type/date.proto"; message M { confluent.type.Decimal d = 1; google.type.Date t = 2; message N { repeated N n = 1; double x = 2; } repeated N n = 3; }`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, schema string) {
		cols, err := Columns(schema, nil, Options{KeepCase: true})
		if err != nil || len(cols) == 0 {
			return
		}
		if _, err := NewDecoder(schema, nil, cols, Options{}); err != nil {
			t.Fatalf("inferred %v but cannot read them: %v", cols, err)
		}
		if _, err := NewEncoder(schema, nil, cols, Options{}); err != nil {
			t.Fatalf("inferred %v but cannot write them: %v", cols, err)
		}
		if own, err := Schema(cols, Options{}); err == nil {
			if _, err := compile(own, nil); err != nil {
				t.Fatalf("the schema printed for %v does not compile: %v\n%s", cols, err, own)
			}
		}
	})
}
