package nexmark

import (
	"fmt"
	"time"
)

// The suite's fixed shape (Flink's NexmarkConfiguration defaults).
const (
	FirstPersonID   = 1000
	FirstAuctionID  = 1000
	FirstCategoryID = 10
	NumCategories   = 5

	personProportion  = 1
	auctionProportion = 3
	bidProportion     = 46
	totalProportion   = personProportion + auctionProportion + bidProportion

	hotAuctionRatio = 2   // 1 bid in 2 goes to the hot auction
	hotBidderRatio  = 4   // 3 bids in 4 come from the hot bidder
	hotSellerRatio  = 4   // 3 auctions in 4 come from the hot seller
	hotEvery        = 100 // the hot auction/bidder/seller changes every 100 ids

	numInFlightAuctions = 100
	numActivePeople     = 1000
	auctionIDLead       = 10
	personIDLead        = 10

	avgPersonBytes  = 200
	avgAuctionBytes = 500
	avgBidBytes     = 100

	numChannels = 10000
)

// Config is what decides the events. Two generators with equal Configs
// produce the same events, byte for byte.
type Config struct {
	// Seed seeds every random choice. Default 1.
	Seed uint64
	// Rate is the events per second of synthetic event time: event n's
	// date_time is BaseTime + n/Rate seconds (Flink's firstEventRate with
	// one generator). Default 10,000,000, the suite's rate.
	Rate int64
	// BaseTime is event 0's date_time. Default 2026-01-01T00:00:00Z, so
	// that runs without a flag are reproducible.
	BaseTime time.Time
}

// DefaultRate is the suite's 10 M events/s.
const DefaultRate = 10_000_000

// DefaultBaseTime is the date_time of event 0 unless set.
func DefaultBaseTime() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

// withDefaults fills the zero fields with their stated defaults.
func (c Config) withDefaults() Config {
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.Rate == 0 {
		c.Rate = DefaultRate
	}
	if c.BaseTime.IsZero() {
		c.BaseTime = DefaultBaseTime()
	}
	return c
}

func (c Config) validate() error {
	if c.Rate < 0 || c.Rate > 1_000_000_000 {
		return fmt.Errorf("nexmark: rate %d events/s is out of range: want 1 … 1,000,000,000", c.Rate)
	}
	return nil
}
