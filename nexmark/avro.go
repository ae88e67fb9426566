package nexmark

import "encoding/binary"

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
