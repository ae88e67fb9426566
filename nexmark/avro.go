package nexmark

import "encoding/binary"

// AvroSchema is the Avro schema the generator registers for kind k's
// topic (subject <topic>-value). Persons and auctions carry their id in
// the key only (a KAFKA BIGINT), so a stream or table over the topic
// infers its value columns from the registry and names the key column
// itself; times are timestamp-millis, ksqlDB's TIMESTAMP.
func AvroSchema(k Kind) string {
	const ts = `{"type":"long","logicalType":"timestamp-millis"}`
	switch k {
	case KindPerson:
		return `{"type":"record","name":"Person","namespace":"nexmark","fields":[` +
			`{"name":"name","type":"string"},{"name":"email_address","type":"string"},` +
			`{"name":"credit_card","type":"string"},{"name":"city","type":"string"},` +
			`{"name":"state","type":"string"},{"name":"date_time","type":` + ts + `},` +
			`{"name":"extra","type":"string"}]}`
	case KindAuction:
		return `{"type":"record","name":"Auction","namespace":"nexmark","fields":[` +
			`{"name":"item_name","type":"string"},{"name":"description","type":"string"},` +
			`{"name":"initial_bid","type":"long"},{"name":"reserve","type":"long"},` +
			`{"name":"date_time","type":` + ts + `},{"name":"expires","type":` + ts + `},` +
			`{"name":"seller","type":"long"},{"name":"category","type":"long"},` +
			`{"name":"extra","type":"string"}]}`
	}
	return `{"type":"record","name":"Bid","namespace":"nexmark","fields":[` +
		`{"name":"auction","type":"long"},{"name":"bidder","type":"long"},` +
		`{"name":"price","type":"long"},{"name":"channel","type":"string"},` +
		`{"name":"url","type":"string"},{"name":"date_time","type":` + ts + `},` +
		`{"name":"extra","type":"string"}]}`
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
