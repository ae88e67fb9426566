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
