package nexmark

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// Format is a value format the generator writes. JSON needs nothing
// else; AVRO, JSON_SR and PROTOBUF register one schema per topic
// (subject <topic>-value) and write Confluent's wire format (magic byte,
// schema id, for PROTOBUF the message index, payload).
type Format string

const (
	FormatJSON     Format = "JSON"
	FormatAvro     Format = "AVRO"
	FormatJSONSR   Format = "JSON_SR"
	FormatProtobuf Format = "PROTOBUF"
)

// ParseFormat accepts a format name in any case.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToUpper(strings.TrimSpace(s))); f {
	case FormatJSON, FormatAvro, FormatJSONSR, FormatProtobuf:
		return f, nil
	}
	return "", fmt.Errorf("unknown format %q: want JSON, AVRO, JSON_SR or PROTOBUF", s)
}

// NeedsRegistry reports whether f writes schema ids.
func (f Format) NeedsRegistry() bool { return f != FormatJSON }

// Topic names, one per kind.
const (
	TopicPerson  = "nexmark-person"
	TopicAuction = "nexmark-auction"
	TopicBid     = "nexmark-bid"
	// TopicSide holds q13's side input.
	TopicSide = "nexmark-side"
)

// Topic is the topic events of kind k go to.
func (k Kind) Topic() string {
	return [...]string{TopicPerson, TopicAuction, TopicBid, TopicSide}[k]
}

// Key is the record key of ev: persons and auctions are keyed by id,
// side rows by key, as ksqlDB's KAFKA BIGINT (8 bytes, big-endian); bids
// have no key.
func Key(ev Event) []byte {
	switch ev.Kind {
	case KindPerson:
		return binary.BigEndian.AppendUint64(nil, uint64(ev.Person.ID))
	case KindAuction:
		return binary.BigEndian.AppendUint64(nil, uint64(ev.Auction.ID))
	case KindSide:
		return binary.BigEndian.AppendUint64(nil, uint64(ev.Side.Key))
	}
	return nil
}

// AppendJSON appends ev's value as one JSON object, fields in the order
// of the DDL, times as epoch milliseconds (what ksqlDB's JSON TIMESTAMP
// reads).
func AppendJSON(b []byte, ev Event) []byte {
	w := jsonWriter{b: b}
	switch ev.Kind {
	case KindPerson:
		p := ev.Person
		w.int("id", p.ID)
		w.str("name", p.Name)
		w.str("email_address", p.EmailAddress)
		w.str("credit_card", p.CreditCard)
		w.str("city", p.City)
		w.str("state", p.State)
		w.int("date_time", p.DateTime)
		w.str("extra", p.Extra)
	case KindAuction:
		a := ev.Auction
		w.int("id", a.ID)
		w.str("item_name", a.ItemName)
		w.str("description", a.Description)
		w.int("initial_bid", a.InitialBid)
		w.int("reserve", a.Reserve)
		w.int("date_time", a.DateTime)
		w.int("expires", a.Expires)
		w.int("seller", a.Seller)
		w.int("category", a.Category)
		w.str("extra", a.Extra)
	case KindSide:
		w.int("k", ev.Side.Key)
		w.str("value", ev.Side.Value)
	default:
		bd := ev.Bid
		w.int("auction", bd.Auction)
		w.int("bidder", bd.Bidder)
		w.int("price", bd.Price)
		w.str("channel", bd.Channel)
		w.str("url", bd.URL)
		w.int("date_time", bd.DateTime)
		w.str("extra", bd.Extra)
	}
	return append(w.b, '}')
}

type jsonWriter struct {
	b []byte
	n int
}

func (w *jsonWriter) name(k string) {
	if w.n == 0 {
		w.b = append(w.b, '{')
	} else {
		w.b = append(w.b, ',')
	}
	w.n++
	w.b = appendJSONString(w.b, k)
	w.b = append(w.b, ':')
}

func (w *jsonWriter) int(k string, v int64) {
	w.name(k)
	w.b = strconv.AppendInt(w.b, v, 10)
}

func (w *jsonWriter) str(k, v string) {
	w.name(k)
	w.b = appendJSONString(w.b, v)
}

// appendJSONString quotes s as JSON: quote, backslash and control bytes
// escaped, everything else (UTF-8 included) as is.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
