package nexmark

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// The schema-registry formats share one field table per kind: the value
// fields in order, upper case as ksqlDB registers them (inferred columns
// keep the schema's case). Persons, auctions and side rows carry their
// id in the key only.

type fieldType uint8

const (
	fieldLong fieldType = iota
	fieldString
	fieldTimestamp // epoch milliseconds; ksqlDB's TIMESTAMP
)

type schemaField struct {
	name string
	typ  fieldType
}

func schemaFields(k Kind) []schemaField {
	l, s, ts := fieldLong, fieldString, fieldTimestamp
	switch k {
	case KindPerson:
		return []schemaField{{"NAME", s}, {"EMAIL_ADDRESS", s}, {"CREDIT_CARD", s}, {"CITY", s}, {"STATE", s}, {"DATE_TIME", ts}, {"EXTRA", s}}
	case KindAuction:
		return []schemaField{{"ITEM_NAME", s}, {"DESCRIPTION", s}, {"INITIAL_BID", l}, {"RESERVE", l}, {"DATE_TIME", ts},
			{"EXPIRES", ts}, {"SELLER", l}, {"CATEGORY", l}, {"EXTRA", s}}
	case KindSide:
		return []schemaField{{"VALUE", s}}
	}
	return []schemaField{{"AUCTION", l}, {"BIDDER", l}, {"PRICE", l}, {"CHANNEL", s}, {"URL", s}, {"DATE_TIME", ts}, {"EXTRA", s}}
}

// fieldValues are ev's values in schemaFields order: int64 or string.
func fieldValues(ev Event) []any {
	switch ev.Kind {
	case KindPerson:
		p := ev.Person
		return []any{p.Name, p.EmailAddress, p.CreditCard, p.City, p.State, p.DateTime, p.Extra}
	case KindAuction:
		a := ev.Auction
		return []any{a.ItemName, a.Description, a.InitialBid, a.Reserve, a.DateTime, a.Expires, a.Seller, a.Category, a.Extra}
	case KindSide:
		return []any{ev.Side.Value}
	}
	b := ev.Bid
	return []any{b.Auction, b.Bidder, b.Price, b.Channel, b.URL, b.DateTime, b.Extra}
}

func recordName(k Kind) string {
	return [...]string{"Person", "Auction", "Bid", "Side"}[k]
}

// AvroSchema is the Avro schema the generator registers for kind k's
// topic (subject <topic>-value); times are timestamp-millis.
func AvroSchema(k Kind) string {
	var fs []string
	for _, f := range schemaFields(k) {
		t := map[fieldType]string{fieldLong: `"long"`, fieldString: `"string"`,
			fieldTimestamp: `{"type":"long","logicalType":"timestamp-millis"}`}[f.typ]
		fs = append(fs, `{"name":"`+f.name+`","type":`+t+`}`)
	}
	return `{"type":"record","name":"` + recordName(k) + `","namespace":"nexmark","fields":[` + strings.Join(fs, ",") + `]}`
}

// JSONSchema is the JSON Schema registered for JSON_SR: integers as
// Connect's int64, times as Connect's Timestamp (what ksqlDB reads as
// TIMESTAMP), every field required.
func JSONSchema(k Kind) string {
	var props, req []string
	for i, f := range schemaFields(k) {
		t := map[fieldType]string{fieldLong: `"type":"integer","connect.type":"int64"`, fieldString: `"type":"string"`,
			fieldTimestamp: `"type":"integer","connect.type":"int64","title":"org.apache.kafka.connect.data.Timestamp"`}[f.typ]
		props = append(props, fmt.Sprintf(`"%s":{%s,"connect.index":%d}`, f.name, t, i))
		req = append(req, `"`+f.name+`"`)
	}
	return `{"type":"object","title":"nexmark.` + recordName(k) + `","properties":{` + strings.Join(props, ",") +
		`},"required":[` + strings.Join(req, ",") + `]}`
}

// ProtoSchema is the proto3 schema registered for PROTOBUF: one message,
// fields numbered from 1, times as google.protobuf.Timestamp.
func ProtoSchema(k Kind) string {
	var sb strings.Builder
	sb.WriteString("syntax = \"proto3\";\npackage nexmark;\n\nimport \"google/protobuf/timestamp.proto\";\n\n")
	sb.WriteString("message " + recordName(k) + " {\n")
	for i, f := range schemaFields(k) {
		t := map[fieldType]string{fieldLong: "int64", fieldString: "string", fieldTimestamp: "google.protobuf.Timestamp"}[f.typ]
		fmt.Fprintf(&sb, "  %s %s = %d;\n", t, f.name, i+1)
	}
	sb.WriteString("}\n")
	return sb.String()
}

// AppendJSONSR appends ev's JSON_SR payload (no wire header): an object
// of schemaFields, times as epoch milliseconds.
func AppendJSONSR(b []byte, ev Event) []byte {
	b = append(b, '{')
	for i, f := range schemaFields(ev.Kind) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, f.name)
		b = append(b, ':')
		switch v := fieldValues(ev)[i].(type) {
		case int64:
			b = strconv.AppendInt(b, v, 10)
		case string:
			b = appendJSONString(b, v)
		}
	}
	return append(b, '}')
}

// AppendProtobuf appends ev's PROTOBUF payload (no wire header) in
// protobuf's binary encoding of ProtoSchema(ev.Kind). Zero values are
// left out, as proto3 writes them.
func AppendProtobuf(b []byte, ev Event) []byte {
	values := fieldValues(ev)
	for i, f := range schemaFields(ev.Kind) {
		num := protowire.Number(i + 1)
		switch f.typ {
		case fieldLong:
			if v := values[i].(int64); v != 0 {
				b = protowire.AppendTag(b, num, protowire.VarintType)
				b = protowire.AppendVarint(b, uint64(v))
			}
		case fieldString:
			if v := values[i].(string); v != "" {
				b = protowire.AppendTag(b, num, protowire.BytesType)
				b = protowire.AppendString(b, v)
			}
		case fieldTimestamp:
			b = protowire.AppendTag(b, num, protowire.BytesType)
			b = protowire.AppendBytes(b, protoTimestamp(values[i].(int64)))
		}
	}
	return b
}

// protoTimestamp is a google.protobuf.Timestamp message of ms.
func protoTimestamp(ms int64) []byte {
	t := time.UnixMilli(ms)
	var b []byte
	if s := t.Unix(); s != 0 {
		b = protowire.AppendTag(b, 1, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(s))
	}
	if n := t.Nanosecond(); n != 0 {
		b = protowire.AppendTag(b, 2, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(n))
	}
	return b
}
