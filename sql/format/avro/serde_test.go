package avro

import (
	"math/big"
	"reflect"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	hamba "github.com/hamba/avro/v2"
	"github.com/sqlstream/sqlstream/sql/types"
	"github.com/twmb/franz-go/pkg/sr"
)

// A producer's schema and Go type, as a Confluent-serializer client
// writes them: required fields, an enum, a nested nullable record.
const orderSchema = `{"type":"record","name":"Order","namespace":"shop","fields":[
	{"name":"id","type":"long"},
	{"name":"item","type":"string"},
	{"name":"qty","type":"int"},
	{"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
	{"name":"at","type":{"type":"long","logicalType":"timestamp-millis"}},
	{"name":"tags","type":{"type":"array","items":"string"}},
	{"name":"attrs","type":{"type":"map","values":"long"}},
	{"name":"status","type":{"type":"enum","name":"Status","symbols":["NEW","DONE"]}},
	{"name":"ship","type":["null",{"type":"record","name":"Addr","fields":[{"name":"city","type":"string"}]}],"default":null}
]}`

type order struct {
	ID     int64            `avro:"id"`
	Item   string           `avro:"item"`
	Qty    int              `avro:"qty"`
	Price  *big.Rat         `avro:"price"`
	At     time.Time        `avro:"at"`
	Tags   []string         `avro:"tags"`
	Attrs  map[string]int64 `avro:"attrs"`
	Status string           `avro:"status"`
	Ship   *addr            `avro:"ship"`
}

type addr struct {
	City string `avro:"city"`
}

// TestSerdeInterop: records a franz-go sr.Serde producer writes (hamba
// underneath, the Confluent header) decode through Columns' inference and
// our decoder once the caller strips the header; rows we encode, behind
// the header, decode in the same Serde into the producer's type.
func TestSerdeInterop(t *testing.T) {
	const id = 17
	schema := mustParse(orderSchema)
	var serde sr.Serde
	serde.Register(id, order{},
		sr.EncodeFn(func(v any) ([]byte, error) { return hamba.Marshal(schema, v) }),
		sr.DecodeFn(func(b []byte, v any) error { return hamba.Unmarshal(schema, b, v) }))
	in := order{
		ID: 5, Item: "pen", Qty: 3, Price: big.NewRat(-1999, 100), At: time.UnixMilli(1_700_000_000_123).UTC(),
		Tags: []string{"a", "b"}, Attrs: map[string]int64{"w": 7}, Status: "DONE", Ship: &addr{City: "Oslo"},
	}
	record, err := serde.Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	cols, err := Columns(orderSchema, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dec, err := NewDecoder(orderSchema, nil, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var h sr.ConfluentHeader
	gotID, payload, err := h.DecodeID(record)
	if err != nil || gotID != id {
		t.Fatalf("header: id %d, %v", gotID, err)
	}
	row := make([]any, len(cols))
	if err := dec.Decode(payload, row); err != nil {
		t.Fatal(err)
	}
	ship := &types.StructValue{Type: cols[8].Type, Values: []any{"Oslo"}}
	want := []any{int64(5), "pen", int32(3), apd.New(-1999, -2), types.Timestamp(1_700_000_000_123),
		[]any{"a", "b"}, map[string]any{"w": int64(7)}, "DONE", ship}
	if !sameValue(row, want) {
		t.Fatalf("decoded %#v\nwant %#v", row, want)
	}

	enc, err := NewEncoder(orderSchema, nil, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ours, err := h.AppendEncode(nil, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ours, err = enc.Encode(ours, row); err != nil {
		t.Fatal(err)
	}
	var out order
	if err := serde.Decode(ours, &out); err != nil {
		t.Fatalf("the Serde cannot read our record: %v", err)
	}
	if !reflect.DeepEqual(normOrder(out), normOrder(in)) {
		t.Fatalf("the Serde read %+v, want %+v", out, in)
	}
}

func normOrder(o order) order {
	o.Price = new(big.Rat).Set(o.Price)
	o.At = o.At.UTC()
	return o
}
