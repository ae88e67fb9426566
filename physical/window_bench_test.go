package physical_test

import (
	"fmt"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
)

// hoppingBid is benchBid n 1 ms apart, about the bid rate of make
// nexmark (1,150 a second of event time), so a window closes once per
// 2,000 bids, not once per 200, over 1,000 auctions, so the open
// windows (seven per auction) fit the default cache as q5's do.
func hoppingBid(n int) *physical.InRecord {
	h := uint64(n) * 0x9e3779b97f4a7c15
	v := fmt.Sprintf(`{"AUCTION":%d,"BIDDER":%d,"PRICE":%d,"CHANNEL":"c%d","DATE_TIME":%d}`,
		h>>40%1000, h>>20%10000, h%2_000_000, n%4, int64(n))
	return &physical.InRecord{Topic: "bid", Value: []byte(v), Timestamp: int64(n)}
}

// BenchmarkHoppingFinal is Nexmark's q5 shape: bids counted per auction
// in hopping windows of 10 s advancing by 2 s (five windows per bid),
// EMIT FINAL, so each bid updates five windows of the window store and
// five results of the buffer, and closed windows leave the buffer.
func BenchmarkHoppingFinal(b *testing.B) {
	pl, stores := benchPipeline(b, `CREATE TABLE q5_counts AS SELECT auction, COUNT(*) AS num FROM bid
	  WINDOW HOPPING (SIZE 10 SECONDS, ADVANCE BY 2 SECONDS, GRACE PERIOD 4 SECONDS) GROUP BY auction EMIT FINAL;`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := pl.process(hoppingBid(i)); err != nil {
			b.Fatal(err)
		}
		if i%1000 == 999 {
			if err := stores.flush(); err != nil {
				b.Fatal(err)
			}
		}
	}
	// Bids are 1 ms apart: the first window (0–10 s) closes with the
	// stream time past 14 s, at bid 14,000.
	if b.N > 14_000 && pl.emitted == 0 {
		b.Fatalf("%d bids closed no window", b.N)
	}
}

// BenchmarkHoppingChanges is BenchmarkHoppingFinal with EMIT CHANGES
// (and benchBid's 10 ms apart): every update of each of the five
// windows is forwarded.
func BenchmarkHoppingChanges(b *testing.B) {
	runBids(b, `CREATE TABLE q5_changes AS SELECT auction, COUNT(*) AS num FROM bid
	  WINDOW HOPPING (SIZE 10 SECONDS, ADVANCE BY 2 SECONDS) GROUP BY auction EMIT CHANGES;`)
}
