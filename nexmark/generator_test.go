package nexmark

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

// TestGenerator runs testdata/generator:
//
//	events [seed=S] [rate=R] [from=N] n=K: events N … N+K-1, one line each:
//	    number, kind, topic, key (hex) and the JSON value
//	avro [seed=S] n=K: the same events' Avro payloads (hex)
//	side [seed=S] n=K: side-input rows 0 … K-1 as JSON
//
// The golden file pins the bytes: the same seed gives the same events.
func TestGenerator(t *testing.T) {
	datadriven.RunTest(t, "testdata/generator", func(t *testing.T, d *datadriven.TestData) string {
		var seed, from uint64
		rate, n := uint64(DefaultRate), uint64(0)
		d.MaybeScanArgs(t, "seed", &seed)
		d.MaybeScanArgs(t, "rate", &rate)
		d.MaybeScanArgs(t, "from", &from)
		d.ScanArgs(t, "n", &n)
		g, err := NewGenerator(Config{Seed: seed, Rate: int64(rate)})
		if err != nil {
			return err.Error()
		}
		var b strings.Builder
		for i := int64(from); i < int64(from+n); i++ {
			ev := g.Event(i)
			switch d.Cmd {
			case "events":
				fmt.Fprintf(&b, "%d %s %s key=%x %s\n", i, ev.Kind, ev.Kind.Topic(), Key(ev), AppendJSON(nil, ev))
			case "avro":
				fmt.Fprintf(&b, "%d %s %x\n", i, ev.Kind, AppendAvro(nil, ev))
			case "side":
				s := g.Side(i)
				fmt.Fprintf(&b, "%d key=%x ts=%d %s\n", i, Key(s), s.DateTime(), AppendJSON(nil, s))
			default:
				t.Fatalf("unknown command %s", d.Cmd)
			}
		}
		return b.String()
	})
}

func TestSameSeedSameBytes(t *testing.T) {
	a, _ := NewGenerator(Config{Seed: 42, Rate: 1000})
	b, _ := NewGenerator(Config{Seed: 42, Rate: 1000})
	c, _ := NewGenerator(Config{Seed: 43, Rate: 1000})
	differ := 0
	for n := range int64(2000) {
		ja, jb, jc := AppendJSON(nil, a.Event(n)), AppendJSON(nil, b.Event(n)), AppendJSON(nil, c.Event(n))
		if !bytes.Equal(ja, jb) {
			t.Fatalf("event %d differs between two generators of seed 42:\n%s\n%s", n, ja, jb)
		}
		if !bytes.Equal(ja, jc) {
			differ++
		}
	}
	if differ < 1900 {
		t.Errorf("seeds 42 and 43 gave %d of 2000 events different, want nearly all", differ)
	}
}

func TestTimestamps(t *testing.T) {
	g, _ := NewGenerator(Config{Rate: 3000, BaseTime: time.UnixMilli(1_000_000)})
	for _, c := range []struct{ n, want int64 }{{0, 1_000_000}, {2, 1_000_000}, {3, 1_000_001}, {2999, 1_000_999}, {3000, 1_001_000}} {
		if got := g.Timestamp(c.n); got != c.want {
			t.Errorf("Timestamp(%d) = %d at 3000 events/s, want %d", c.n, got, c.want)
		}
	}
}

// stats counts what the distribution test checks over many events.
type stats struct {
	kinds                      [3]int
	hotAuction, hotBidder, bid int
	hotSeller, auction         int
	hotChannel, channelID      int
	decades                    [6]int
	size                       [3]int
}

func collect(g *Generator, n int64) stats {
	var s stats
	for i := range n {
		ev := g.Event(i)
		s.kinds[ev.Kind]++
		switch ev.Kind {
		case KindPerson:
			p := ev.Person
			s.size[KindPerson] += 8 + len(p.Name) + len(p.EmailAddress) + len(p.CreditCard) + len(p.City) + len(p.State) + len(p.Extra)
		case KindAuction:
			a := ev.Auction
			s.auction++
			if a.Seller == lastPerson(i)/hotEvery*hotEvery+FirstPersonID {
				s.hotSeller++
			}
			s.size[KindAuction] += 8 + len(a.ItemName) + len(a.Description) + 40 + len(a.Extra)
		case KindBid:
			b := ev.Bid
			s.bid++
			if b.Auction == lastAuction(i)/hotEvery*hotEvery+FirstAuctionID {
				s.hotAuction++
			}
			if b.Bidder == lastPerson(i)/hotEvery*hotEvery+1+FirstPersonID {
				s.hotBidder++
			}
			if !strings.HasPrefix(b.Channel, "channel-") {
				s.hotChannel++
			} else if strings.Contains(b.URL, "&channel_id=") {
				s.channelID++
			}
			s.decades[min(int(math.Log10(float64(b.Price)/100)), 5)]++
			s.size[KindBid] += 32 + len(b.Extra)
		}
	}
	return s
}

// TestDistributions checks the proportions and the hotness the suite
// specifies over 100,000 events, within a few standard deviations.
func TestDistributions(t *testing.T) {
	g, _ := NewGenerator(Config{Seed: 3})
	const n = 100_000
	s := collect(g, n)
	if s.kinds != [3]int{2000, 6000, 92000} {
		t.Errorf("persons, auctions, bids = %v, want exactly 2000, 6000, 92000 (1:3:46)", s.kinds)
	}
	near := func(what string, got, total int, want, tol float64) {
		t.Helper()
		if f := float64(got) / float64(total); math.Abs(f-want) > tol {
			t.Errorf("%s: %.4f, want %.4f ± %.4f", what, f, want, tol)
		}
	}
	// A random pick can also land on the hot id, so the shares are a
	// little above 1/2 and 3/4.
	near("bids on the hot auction", s.hotAuction, s.bid, 0.5+0.5/111, 0.01)
	near("bids by the hot bidder", s.hotBidder, s.bid, 0.75, 0.01)
	near("auctions by the hot seller", s.hotSeller, s.auction, 0.75, 0.02)
	near("bids on a hot channel", s.hotChannel, s.bid, 0.5, 0.01)
	near("other channels' URLs with channel_id", s.channelID, s.bid-s.hotChannel, 0.9, 0.02)
	for d, c := range s.decades {
		near(fmt.Sprintf("prices in decade %d (log-uniform)", d), c, s.bid, 1.0/6, 0.01)
	}
	near("mean person size / 200", s.size[KindPerson], s.kinds[KindPerson]*avgPersonBytes, 1, 0.05)
	near("mean auction size / 500", s.size[KindAuction], s.kinds[KindAuction]*avgAuctionBytes, 1, 0.05)
	near("mean bid size / 100", s.size[KindBid], s.kinds[KindBid]*avgBidBytes, 1, 0.05)
}

func TestPriceBounds(t *testing.T) {
	g, _ := NewGenerator(Config{Seed: 9})
	for i := range int64(50_000) {
		if ev := g.Event(i); ev.Kind == KindBid && (ev.Bid.Price < 100 || ev.Bid.Price > 100_000_000) {
			t.Fatalf("event %d: price %d outside 100 … 100,000,000", i, ev.Bid.Price)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	if _, err := NewGenerator(Config{Rate: -5}); err == nil || !strings.Contains(err.Error(), "rate -5") {
		t.Errorf("rate -5: got %v, want an error naming it", err)
	}
}
