package nexmark

// Kind is an event's type.
type Kind uint8

const (
	KindPerson Kind = iota
	KindAuction
	KindBid
	// KindSide is a row of q13's side input, not a Nexmark event.
	KindSide
)

func (k Kind) String() string {
	return [...]string{"person", "auction", "bid", "side"}[k]
}

// Person is a new user of the auction site.
type Person struct {
	ID           int64
	Name         string
	EmailAddress string
	CreditCard   string
	City         string
	State        string
	DateTime     int64 // milliseconds since the epoch
	Extra        string
}

// Auction is an item put up for sale by a seller (a person).
type Auction struct {
	ID          int64
	ItemName    string
	Description string
	InitialBid  int64
	Reserve     int64
	DateTime    int64
	Expires     int64
	Seller      int64
	Category    int64
	Extra       string
}

// Bid is a bid by a bidder (a person) on an auction.
type Bid struct {
	Auction  int64
	Bidder   int64
	Price    int64 // cents
	Channel  string
	URL      string
	DateTime int64
	Extra    string
}

// Side is a row of the side input q13 joins bids with: Key is
// auction % NumSideKeys.
type Side struct {
	Key      int64
	Value    string
	DateTime int64
}

// Event is one generated event: exactly one of Person, Auction, Bid
// (or, for the side input, Side) is set, as Kind says. Number is its
// position in the sequence from 0 (a side row's is its key).
type Event struct {
	Number  int64
	Kind    Kind
	Person  *Person
	Auction *Auction
	Bid     *Bid
	Side    *Side
}

// DateTime is the event's synthetic event time in milliseconds.
func (e Event) DateTime() int64 {
	switch e.Kind {
	case KindPerson:
		return e.Person.DateTime
	case KindAuction:
		return e.Auction.DateTime
	case KindSide:
		return e.Side.DateTime
	default:
		return e.Bid.DateTime
	}
}
