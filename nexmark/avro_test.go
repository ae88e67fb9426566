package nexmark

import (
	"strings"
	"testing"
	"time"

	"github.com/hamba/avro/v2"
)

// TestAvroDecodesWithHamba reads the hand-written Avro payloads back
// with hamba/avro against the schemas the generator registers.
func TestAvroDecodesWithHamba(t *testing.T) {
	g, _ := NewGenerator(Config{Seed: 5, Rate: 1000})
	for n := range int64(200) {
		ev := g.Event(n)
		schema, err := avro.Parse(AvroSchema(ev.Kind))
		if err != nil {
			t.Fatalf("%s schema: %v", ev.Kind, err)
		}
		var got map[string]any
		if err := avro.Unmarshal(schema, AppendAvro(nil, ev), &got); err != nil {
			t.Fatalf("event %d (%s): %v", n, ev.Kind, err)
		}
		want := avroFields(ev)
		for k, v := range want {
			if g := got[strings.ToUpper(k)]; g != v {
				t.Fatalf("event %d (%s) field %s = %#v, want %#v", n, ev.Kind, k, g, v)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("event %d: %d fields, want %d", n, len(got), len(want))
		}
	}
}

func avroFields(ev Event) map[string]any {
	ts := func(ms int64) any { return time.UnixMilli(ms).UTC() }
	switch ev.Kind {
	case KindPerson:
		p := ev.Person
		return map[string]any{"name": p.Name, "email_address": p.EmailAddress, "credit_card": p.CreditCard,
			"city": p.City, "state": p.State, "date_time": ts(p.DateTime), "extra": p.Extra}
	case KindAuction:
		a := ev.Auction
		return map[string]any{"item_name": a.ItemName, "description": a.Description, "initial_bid": a.InitialBid,
			"reserve": a.Reserve, "date_time": ts(a.DateTime), "expires": ts(a.Expires), "seller": a.Seller,
			"category": a.Category, "extra": a.Extra}
	}
	b := ev.Bid
	return map[string]any{"auction": b.Auction, "bidder": b.Bidder, "price": b.Price, "channel": b.Channel,
		"url": b.URL, "date_time": ts(b.DateTime), "extra": b.Extra}
}
