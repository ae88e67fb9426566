package nexmark

import (
	"iter"
	"slices"
	"strings"
	"testing"
)

// Small hand-made inputs for the reference computations: each test
// states the rows by hand, independently of the code under test.

func bidAt(auction, bidder, price, ts int64) Event {
	return Event{Kind: KindBid, Bid: &Bid{Auction: auction, Bidder: bidder, Price: price, DateTime: ts, Channel: "Apple", URL: "u"}}
}

func seq(evs ...Event) iter.Seq[Event] { return slices.Values(evs) }

func checkRows(t *testing.T, q *Query, evs []Event, want ...string) {
	t.Helper()
	var got []string
	for _, r := range q.Reference(seq(evs...)) {
		line := r.Canonical(q.Columns)
		if r[Optional] == true {
			line += " (optional)"
		}
		got = append(got, line)
	}
	slices.Sort(got)
	slices.Sort(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s rows:\n%s\nwant:\n%s", q.Name, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// q5: counts per auction in 10 s windows every 2 s (starting at 0 or
// later); a window is out once stream time reaches its end + 4 s, so the
// bid at 20 s closes the windows starting at 0, 2 and 4 s.
func TestQ5Reference(t *testing.T) {
	evs := []Event{bidAt(7, 1, 100, 0), bidAt(7, 1, 100, 1000), bidAt(9, 1, 100, 3000), bidAt(9, 1, 100, 5000), bidAt(9, 1, 100, 20_000)}
	checkRows(t, q5(), evs,
		"STARTTIME=0, NUM=2, AUCTION=9", // 7 and 9 tie at 2: the larger id wins
		"STARTTIME=2000, NUM=2, AUCTION=9",
		"STARTTIME=4000, NUM=1, AUCTION=9")
}

// q7: the bids at their 10 s window's highest price, ties all kept, for
// windows closed by stream time (end + 4 s).
func TestQ7Reference(t *testing.T) {
	evs := []Event{bidAt(1, 1, 50, 1000), bidAt(2, 2, 90, 2000), bidAt(3, 3, 90, 9999), bidAt(4, 4, 10, 12_000), bidAt(5, 5, 99, 24_000)}
	q := q7()
	q.Columns = []string{"WB", "AUCTION", "PRICE"}
	checkRows(t, q, evs, "WB=0, AUCTION=2, PRICE=90", "WB=0, AUCTION=3, PRICE=90", "WB=1, AUCTION=4, PRICE=10")
}

func TestQ11Reference(t *testing.T) {
	evs := []Event{bidAt(1, 8, 1, 0), bidAt(1, 8, 1, 10_000), bidAt(1, 9, 1, 12_000), bidAt(1, 8, 1, 20_001)}
	checkRows(t, q11(), evs,
		"B=8, BID_COUNT=2, STARTTIME=0, ENDTIME=10000", // a gap of exactly 10 s joins the session
		"B=8, BID_COUNT=1, STARTTIME=20001, ENDTIME=20001",
		"B=9, BID_COUNT=1, STARTTIME=12000, ENDTIME=12000")
}

// q3: a person created with the auction's own timestamp may or may not
// be in the table when the auction is joined; one created later never.
func TestQ3Reference(t *testing.T) {
	person := func(id, ts int64, state string) Event {
		return Event{Kind: KindPerson, Person: &Person{ID: id, Name: "n", City: "c", State: state, DateTime: ts}}
	}
	auction := func(id, seller, cat, ts int64) Event {
		return Event{Kind: KindAuction, Auction: &Auction{ID: id, Seller: seller, Category: cat, DateTime: ts}}
	}
	evs := []Event{person(1, 0, "OR"), person(2, 0, "WA"), auction(10, 1, 10, 5), auction(11, 2, 10, 5),
		auction(12, 1, 11, 5), auction(13, 3, 10, 7), person(3, 7, "CA"), auction(14, 4, 10, 8), person(4, 9, "ID")}
	checkRows(t, q3(), evs,
		`SELLER=1, NAME="n", CITY="c", STATE="OR", ID=10`,
		`SELLER=3, NAME="n", CITY="c", STATE="CA", ID=13 (optional)`)
}

func TestQ8Reference(t *testing.T) {
	person := func(id, ts int64) Event {
		return Event{Kind: KindPerson, Person: &Person{ID: id, Name: "p", DateTime: ts}}
	}
	auction := func(seller, ts int64) Event {
		return Event{Kind: KindAuction, Auction: &Auction{Seller: seller, DateTime: ts}}
	}
	// Person 1 sells in its own window twice (one row), person 2 in the
	// next window only (no row); the pair at 25 s closes [0,10) and
	// [10,20) but not [20,30).
	evs := []Event{person(1, 1000), auction(1, 2000), auction(1, 3000), person(2, 9000), auction(2, 11_000),
		person(3, 12_000), auction(3, 19_999), person(4, 21_000), auction(4, 25_000)}
	checkRows(t, q8(), evs, `PID=1, NAME="p", STIME=0`, `PID=3, NAME="p", STIME=10000`)
}

func TestQ4Reference(t *testing.T) {
	auction := func(id, cat, ts, expires int64) Event {
		return Event{Kind: KindAuction, Auction: &Auction{ID: id, Category: cat, DateTime: ts, Expires: expires}}
	}
	// Auction 1 (category 10) wins at 70 (the 99 comes after it
	// expired), auction 2 (10) at 30, auction 3 (11) at 5; the bid on 4
	// precedes it.
	evs := []Event{auction(1, 10, 0, 100), bidAt(1, 1, 50, 10), bidAt(1, 1, 70, 20), bidAt(1, 1, 99, 101),
		auction(2, 10, 0, 100), bidAt(2, 1, 30, 50), bidAt(4, 1, 9, 50), auction(3, 11, 60, 100), bidAt(3, 1, 5, 60),
		auction(4, 11, 60, 100)}
	checkRows(t, q4(), evs, "CATEGORY=10, FINAL=50", "CATEGORY=11, FINAL=5")
}

func TestQ21ChannelID(t *testing.T) {
	for url, want := range map[string]string{
		"https://x/item.htm?query=1&channel_id=123":       "123",
		"https://x/item.htm?query=1&channel_id=4&other=1": "4",
		"channel_id=77&a=1":                               "77",
		"https://x/item.htm?query=1":                      "",
	} {
		if got, _ := channelID(url); got != want {
			t.Errorf("channelID(%q) = %q, want %q", url, got, want)
		}
	}
}

func TestRowsAndDiff(t *testing.T) {
	q := &Query{Name: "t", Sink: "T", Table: true, Key: KeyBigint, KeyColumns: []string{"K"}, Columns: []string{"K", "V"}}
	k := func(n byte) []byte { return []byte{0, 0, 0, 0, 0, 0, 0, n} }
	rows, err := q.Rows([]Record{{Key: k(1), Value: []byte(`{"V":1}`)}, {Key: k(2), Value: []byte(`{"V":2.50}`)},
		{Key: k(1), Value: []byte(`{"V":3}`)}, {Key: k(3), Value: []byte(`{"V":4}`)}, {Key: k(3)}})
	if err != nil {
		t.Fatal(err)
	}
	want := []Row{{"K": int64(1), "V": int64(3)}, {"K": int64(2), "V": 2.5}}
	if d := Diff(q.Columns, rows, want); d != "" {
		t.Errorf("last value per key, tombstone removes: %s", d)
	}
	opt := append(want, Row{"K": int64(9), "V": int64(9), Optional: true})
	if d := Diff(q.Columns, rows, opt); d != "" {
		t.Errorf("an optional row need not be there: %s", d)
	}
	for _, c := range []struct {
		want []Row
		diff string
	}{
		{[]Row{{"K": int64(1), "V": int64(3)}}, "first unexpected: K=2, V=2.5"},
		{append(want, Row{"K": int64(4), "V": int64(0)}), "first missing: K=4, V=0"},
	} {
		if d := Diff(q.Columns, rows, c.want); !strings.Contains(d, c.diff) {
			t.Errorf("Diff = %q, want it to say %q", d, c.diff)
		}
	}
	if _, err := q.Rows([]Record{{Key: []byte{1}, Value: []byte(`{}`), Offset: 7}}); err == nil || !strings.Contains(err.Error(), "offset 7") {
		t.Errorf("a 1-byte BIGINT key: %v, want an error naming offset 7", err)
	}
}
