package nexmark

import "encoding/binary"

// AvroSchema is the Avro schema the generator registers for kind k's
// topic (subject <topic>-value). Persons and auctions carry their id in
// the key only (a KAFKA BIGINT), so a stream or table over the topic
// infers its value columns from the registry and names the key column
// itself; times are timestamp-millis, ksqlDB's TIMESTAMP. Field names
// are upper case, as in the schemas ksqlDB registers, since inferred
// columns keep the schema's case (lower-case ones would need quoting).
func AvroSchema(k Kind) string {
	const ts = `{"type":"long","logicalType":"timestamp-millis"}`
	switch k {
	case KindPerson:
		return `{"type":"record","name":"Person","namespace":"nexmark","fields":[` +
			`{"name":"NAME","type":"string"},{"name":"EMAIL_ADDRESS","type":"string"},` +
			`{"name":"CREDIT_CARD","type":"string"},{"name":"CITY","type":"string"},` +
			`{"name":"STATE","type":"string"},{"name":"DATE_TIME","type":` + ts + `},` +
			`{"name":"EXTRA","type":"string"}]}`
	case KindAuction:
		return `{"type":"record","name":"Auction","namespace":"nexmark","fields":[` +
			`{"name":"ITEM_NAME","type":"string"},{"name":"DESCRIPTION","type":"string"},` +
			`{"name":"INITIAL_BID","type":"long"},{"name":"RESERVE","type":"long"},` +
			`{"name":"DATE_TIME","type":` + ts + `},{"name":"EXPIRES","type":` + ts + `},` +
			`{"name":"SELLER","type":"long"},{"name":"CATEGORY","type":"long"},` +
			`{"name":"EXTRA","type":"string"}]}`
	case KindSide:
		return `{"type":"record","name":"Side","namespace":"nexmark","fields":[{"name":"VALUE","type":"string"}]}`
	}
	return `{"type":"record","name":"Bid","namespace":"nexmark","fields":[` +
		`{"name":"AUCTION","type":"long"},{"name":"BIDDER","type":"long"},` +
		`{"name":"PRICE","type":"long"},{"name":"CHANNEL","type":"string"},` +
		`{"name":"URL","type":"string"},{"name":"DATE_TIME","type":` + ts + `},` +
		`{"name":"EXTRA","type":"string"}]}`
}

// AppendAvro appends ev's value in Avro's binary encoding of
// AvroSchema(ev.Kind) (no wire header): longs as zig-zag varints,
// strings as a length and their bytes, fields in schema order.
func AppendAvro(b []byte, ev Event) []byte {
	switch ev.Kind {
	case KindPerson:
		p := ev.Person
		b = avroStrings(b, p.Name, p.EmailAddress, p.CreditCard, p.City, p.State)
		b = binary.AppendVarint(b, p.DateTime)
		return avroStrings(b, p.Extra)
	case KindAuction:
		a := ev.Auction
		b = avroStrings(b, a.ItemName, a.Description)
		b = avroLongs(b, a.InitialBid, a.Reserve, a.DateTime, a.Expires, a.Seller, a.Category)
		return avroStrings(b, a.Extra)
	case KindSide:
		return avroStrings(b, ev.Side.Value)
	}
	bd := ev.Bid
	b = avroLongs(b, bd.Auction, bd.Bidder, bd.Price)
	b = avroStrings(b, bd.Channel, bd.URL)
	b = binary.AppendVarint(b, bd.DateTime)
	return avroStrings(b, bd.Extra)
}

func avroLongs(b []byte, vs ...int64) []byte {
	for _, v := range vs {
		b = binary.AppendVarint(b, v) // zig-zag, as Avro's long
	}
	return b
}

func avroStrings(b []byte, vs ...string) []byte {
	for _, v := range vs {
		b = binary.AppendVarint(b, int64(len(v)))
		b = append(b, v...)
	}
	return b
}
