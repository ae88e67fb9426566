package protobuf

import (
	"bytes"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

// TestWrapperDefaultsAreNotNull: a google.protobuf.*Value wrapper that is
// present with its inner value at the default (0, "", false) reads as
// that value, an absent one as NULL, as Confluent's ProtobufData unboxes
// them; under VALUE_PROTOBUF_NULLABLE_REPRESENTATION='WRAPPER' a default
// is written as a present (empty) wrapper and NULL as no field, so both
// come back as written.
func TestWrapperDefaultsAreNotNull(t *testing.T) {
	schema := `syntax = "proto3";
import "google/protobuf/wrappers.proto";
message M {
  google.protobuf.Int32Value i = 1;
  google.protobuf.StringValue s = 2;
  google.protobuf.BoolValue b = 3;
}`
	cols := []types.Column{{Name: "I", Type: types.IntegerType}, {Name: "S", Type: types.StringType}, {Name: "B", Type: types.BooleanType}}
	dec, err := NewDecoder(schema, nil, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := NewEncoder(schema, nil, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// i present with no inner field (0), s absent, b present and true.
	wire := []byte{0x0a, 0x00, 0x1a, 0x02, 0x08, 0x01}
	got := make([]any, 3)
	if err := dec.Decode(wire, got); err != nil {
		t.Fatal(err)
	}
	if got[0] != int32(0) || got[1] != nil || got[2] != true {
		t.Fatalf("decoded %#v, want [0 <nil> true]", got)
	}
	for _, row := range [][]any{{int32(0), "", false}, {nil, nil, nil}, {int32(7), "x", nil}} {
		b, err := enc.Encode(nil, row)
		if err != nil {
			t.Fatal(err)
		}
		back := make([]any, 3)
		if err := dec.Decode(b, back); err != nil {
			t.Fatal(err)
		}
		for i := range row {
			if back[i] != row[i] {
				t.Errorf("%v encoded as % x reads back as %v", row, b, back)
				break
			}
		}
	}
	if b, _ := enc.Encode(nil, []any{int32(0), "", false}); !bytes.Equal(b, []byte{0x0a, 0x00, 0x12, 0x00, 0x1a, 0x00}) {
		t.Errorf("defaults encoded as % x, want three present empty wrappers", b)
	}
}
