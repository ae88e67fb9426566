package nexmark

import (
	"iter"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// Generator makes the Nexmark events of one Config. Event n depends only
// on the Config and n (each event draws from its own seeded rng), so
// ranges can be generated in any order or in parallel and the same seed
// always gives the same bytes.
type Generator struct {
	cfg  Config
	base int64 // BaseTime in milliseconds
	// channelURLs[i] is channel-i's URL, made once from the seed (Flink
	// caches them too, but from an unseeded rng).
	channelURLs []string
	hotURLs     [4]string
	w           words
}

// words are the suite's word lists.
type words struct {
	hotChannels [4]string
	first       [11]string
	last        [9]string
	states      [6]string
	cities      [10]string
}

func suiteWords() words {
	return words{
		hotChannels: [...]string{"Google", "Facebook", "Baidu", "Apple"},
		first:       [...]string{"Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"},
		last:        [...]string{"Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"},
		states:      [...]string{"AZ", "CA", "ID", "OR", "WA", "WY"},
		cities:      [...]string{"Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle", "Kent", "Cheyenne"},
	}
}

// NewGenerator validates cfg (zero fields take their defaults) and builds
// the URL tables.
func NewGenerator(cfg Config) (*Generator, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	g := &Generator{cfg: cfg, base: cfg.BaseTime.UnixMilli(), channelURLs: make([]string, numChannels), w: suiteWords()}
	for i := range g.channelURLs {
		r := newRNG(cfg.Seed, 1<<62+uint64(i))
		g.channelURLs[i] = channelURL(&r, i)
	}
	for i := range g.hotURLs {
		r := newRNG(cfg.Seed, 1<<63+uint64(i))
		g.hotURLs[i] = baseURL(&r)
	}
	return g, nil
}

// Config is the generator's configuration with its defaults filled in.
func (g *Generator) Config() Config { return g.cfg }

// Timestamp is event n's date_time in milliseconds: BaseTime + n/Rate s.
func (g *Generator) Timestamp(n int64) int64 {
	hi, lo := bits.Mul64(uint64(n), 1000)
	q, _ := bits.Div64(hi, lo, uint64(g.cfg.Rate))
	return g.base + int64(q)
}

// Time is Timestamp as a time.Time.
func (g *Generator) Time(n int64) time.Time { return time.UnixMilli(g.Timestamp(n)).UTC() }

// KindOf is event n's kind: of every 50 events 1 is a person, 3 are
// auctions and 46 are bids.
func KindOf(n int64) Kind {
	switch off := n % totalProportion; {
	case off < personProportion:
		return KindPerson
	case off < personProportion+auctionProportion:
		return KindAuction
	default:
		return KindBid
	}
}

// Event generates event n (n ≥ 0).
func (g *Generator) Event(n int64) Event {
	r := newRNG(g.cfg.Seed, uint64(n))
	ev := Event{Number: n, Kind: KindOf(n)}
	switch ev.Kind {
	case KindPerson:
		ev.Person = g.person(&r, n)
	case KindAuction:
		ev.Auction = g.auction(&r, n)
	default:
		ev.Bid = g.bid(&r, n)
	}
	return ev
}

// NumSideKeys is the side input's size: keys 0 … 9999, as Flink's q13
// side input file.
const NumSideKeys = 10000

// Side is row k of q13's side input: a value made from the seed, and a
// timestamp 1 ms before event 0 (or 0), so a task reading in timestamp
// order has the whole table before the first bid.
func (g *Generator) Side(k int64) Event {
	r := newRNG(g.cfg.Seed, 1<<61+uint64(k))
	return Event{Number: k, Kind: KindSide, Side: &Side{Key: k, Value: nextString(&r, 16, ' '), DateTime: max(g.base-1, 0)}}
}

// lastPerson is the base-0 id of the newest person at event n: person
// ids are dense, one per 50 events.
func lastPerson(n int64) int64 {
	epoch, off := n/totalProportion, n%totalProportion
	if off >= personProportion {
		off = personProportion - 1
	}
	return epoch*personProportion + off
}

// lastAuction is the base-0 id of the newest auction at event n (an
// event before the epoch's first auction sees the previous epoch's last).
func lastAuction(n int64) int64 {
	epoch, off := n/totalProportion, n%totalProportion
	switch {
	case off < personProportion:
		epoch--
		off = auctionProportion - 1
	case off >= personProportion+auctionProportion:
		off = auctionProportion - 1
	default:
		off -= personProportion
	}
	return epoch*auctionProportion + off
}

// randomPerson is one of the last numActivePeople persons, or one of the
// personIDLead not yet created (base 0).
func randomPerson(r *rng, n int64) int64 {
	people := lastPerson(n) + 1
	active := min(people, numActivePeople)
	return people - active + r.intn(active+personIDLead)
}

// randomAuction is one of the last numInFlightAuctions auctions, or one
// of the auctionIDLead not yet created (base 0).
func randomAuction(r *rng, n int64) int64 {
	last := lastAuction(n)
	lo := max(last-numInFlightAuctions, 0)
	return lo + r.intn(last-lo+1+auctionIDLead)
}

func (g *Generator) person(r *rng, n int64) *Person {
	p := &Person{
		ID:           FirstPersonID + lastPerson(n),
		Name:         g.w.first[r.intn(len64(g.w.first[:]))] + " " + g.w.last[r.intn(len64(g.w.last[:]))],
		EmailAddress: nextString(r, 7, ' ') + "@" + nextString(r, 5, ' ') + ".com",
		CreditCard:   creditCard(r),
		City:         g.w.cities[r.intn(len64(g.w.cities[:]))],
		State:        g.w.states[r.intn(len64(g.w.states[:]))],
		DateTime:     g.Timestamp(n),
	}
	size := 8 + len(p.Name) + len(p.EmailAddress) + len(p.CreditCard) + len(p.City) + len(p.State)
	p.Extra = nextExtra(r, size, avgPersonBytes)
	return p
}

func (g *Generator) auction(r *rng, n int64) *Auction {
	a := &Auction{ID: FirstAuctionID + lastAuction(n), DateTime: g.Timestamp(n)}
	if r.intn(hotSellerRatio) > 0 {
		a.Seller = lastPerson(n) / hotEvery * hotEvery
	} else {
		a.Seller = randomPerson(r, n)
	}
	a.Seller += FirstPersonID
	a.Category = FirstCategoryID + r.intn(NumCategories)
	a.InitialBid = r.price()
	a.Expires = a.DateTime + g.auctionLength(r, n)
	a.ItemName = nextString(r, 20, ' ')
	a.Description = nextString(r, 100, ' ')
	a.Reserve = a.InitialBid + r.price()
	size := 8 + len(a.ItemName) + len(a.Description) + 8 + 8 + 8 + 8 + 8
	a.Extra = nextExtra(r, size, avgAuctionBytes)
	return a
}

// auctionLength is 1 + up to twice the event time it takes to generate
// the next numInFlightAuctions auctions, so about that many are open.
func (g *Generator) auctionLength(r *rng, n int64) int64 {
	const eventsForAuctions = numInFlightAuctions * totalProportion / auctionProportion
	horizon := g.Timestamp(n+eventsForAuctions) - g.Timestamp(n)
	return 1 + r.intn(max(horizon*2, 1))
}

func (g *Generator) bid(r *rng, n int64) *Bid {
	b := &Bid{DateTime: g.Timestamp(n)}
	if r.intn(hotAuctionRatio) > 0 {
		b.Auction = lastAuction(n) / hotEvery * hotEvery
	} else {
		b.Auction = randomAuction(r, n)
	}
	b.Auction += FirstAuctionID
	if r.intn(hotBidderRatio) > 0 {
		b.Bidder = lastPerson(n)/hotEvery*hotEvery + 1
	} else {
		b.Bidder = randomPerson(r, n)
	}
	b.Bidder += FirstPersonID
	b.Price = r.price()
	if r.intn(2) > 0 {
		i := r.intn(len64(g.w.hotChannels[:]))
		b.Channel, b.URL = g.w.hotChannels[i], g.hotURLs[i]
	} else {
		i := r.intn(numChannels)
		b.Channel, b.URL = "channel-"+strconv.FormatInt(i, 10), g.channelURLs[i]
	}
	b.Extra = nextExtra(r, 8+8+8+8, avgBidBytes)
	return b
}

func len64(s []string) int64 { return int64(len(s)) }

// nextString is 3 to max-1 random lower-case letters, 1 in 13 of them
// space instead.
func nextString(r *rng, max int64, space byte) string {
	n := 3 + r.intn(max-3)
	var sb strings.Builder
	sb.Grow(int(n))
	for range n {
		if r.intn(13) == 0 {
			sb.WriteByte(space)
		} else {
			sb.WriteByte(byte('a' + r.intn(26)))
		}
	}
	return sb.String()
}

// exactString is n random lower-case letters.
func exactString(r *rng, n int64) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + r.intn(26))
	}
	return string(b)
}

// nextExtra pads an event of size bytes towards avg: empty when the event
// is already that big, else the missing bytes ±20 %.
func nextExtra(r *rng, size, avg int) string {
	if size > avg {
		return ""
	}
	want := int64(avg - size)
	delta := (want*2 + 5) / 10 // round(want · 0.2)
	want -= delta
	if delta > 0 {
		want += r.intn(2 * delta)
	}
	return exactString(r, want)
}

func creditCard(r *rng) string {
	var sb strings.Builder
	for i := range 4 {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(strconv.FormatInt(1000+r.intn(9000), 10))
	}
	return sb.String()
}

func baseURL(r *rng) string {
	return "https://www.nexmark.com/" + nextString(r, 5, '_') + "/" + nextString(r, 5, '_') + "/" +
		nextString(r, 5, '_') + "/item.htm?query=1"
}

// channelURL is channel i's URL: 9 in 10 carry &channel_id= and the
// channel number's bits reversed, as a Java int's Math.abs (so channel 1
// gives -2147483648, as in the suite).
func channelURL(r *rng, i int) string {
	u := baseURL(r)
	if r.intn(10) > 0 {
		id := int32(bits.Reverse32(uint32(i)))
		if id < 0 {
			id = -id
		}
		u += "&channel_id=" + strconv.FormatInt(int64(id), 10)
	}
	return u
}

// Input is what Load writes by default, in its order: the side input's
// rows, then events 0 … n-1.
func (g *Generator) Input(n int64) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		for k := range int64(NumSideKeys) {
			if !yield(g.Side(k)) {
				return
			}
		}
		for ev := range g.Events(n) {
			if !yield(ev) {
				return
			}
		}
	}
}

// Events is events 0 … n-1 of g, in order.
func (g *Generator) Events(n int64) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		for i := range n {
			if !yield(g.Event(i)) {
				return
			}
		}
	}
}
