package nexmark

import (
	"iter"
	"time"
)

// Aggregations without windows, checked on each key's final row.

func q17() *Query {
	return &Query{
		Name: "q17", Sources: []string{"bid"},
		Statements: []string{"CREATE TABLE nexmark_q17 WITH (KEY_FORMAT='JSON') AS SELECT auction, " +
			"FORMAT_TIMESTAMP(date_time, 'yyyy-MM-dd') AS day, COUNT(*) AS total_bids, " +
			"SUM(CASE WHEN price < 10000 THEN 1 ELSE 0 END) AS rank1_bids, " +
			"SUM(CASE WHEN price >= 10000 AND price < 1000000 THEN 1 ELSE 0 END) AS rank2_bids, " +
			"SUM(CASE WHEN price >= 1000000 THEN 1 ELSE 0 END) AS rank3_bids, MIN(price) AS min_price, " +
			"MAX(price) AS max_price, AVG(price) AS avg_price, SUM(price) AS sum_price FROM bid " +
			"GROUP BY auction, FORMAT_TIMESTAMP(date_time, 'yyyy-MM-dd') EMIT CHANGES;"},
		Sink: "NEXMARK_Q17", Table: true, Key: KeyJSON, KeyColumns: []string{"AUCTION", "DAY"},
		Columns: []string{"AUCTION", "DAY", "TOTAL_BIDS", "RANK1_BIDS", "RANK2_BIDS", "RANK3_BIDS", "MIN_PRICE", "MAX_PRICE", "AVG_PRICE", "SUM_PRICE"},
		Deviation: "COUNT(*) FILTER (WHERE …) is SUM(CASE WHEN … THEN 1 ELSE 0 END); DATE_FORMAT is FORMAT_TIMESTAMP (UTC); " +
			"the two-column key is KEY_FORMAT='JSON'",
		FlinkV1: 117e3, FlinkV2: 161e3, Feldera: 242e3,
		Reference: q17Reference,
	}
}

func q17Reference(events iter.Seq[Event]) []Row {
	type key struct {
		auction int64
		day     string
	}
	type agg struct{ n, r1, r2, r3, lo, hi, sum int64 }
	aggs := map[key]*agg{}
	var order []key
	for b := range bids(events) {
		k := key{b.Auction, time.UnixMilli(b.DateTime).UTC().Format("2006-01-02")}
		a, ok := aggs[k]
		if !ok {
			a = &agg{lo: b.Price, hi: b.Price}
			aggs[k] = a
			order = append(order, k)
		}
		a.n++
		switch {
		case b.Price < 10_000:
			a.r1++
		case b.Price < 1_000_000:
			a.r2++
		default:
			a.r3++
		}
		a.lo, a.hi, a.sum = min(a.lo, b.Price), max(a.hi, b.Price), a.sum+b.Price
	}
	out := make([]Row, 0, len(order))
	for _, k := range order {
		a := aggs[k]
		out = append(out, Row{"AUCTION": k.auction, "DAY": k.day, "TOTAL_BIDS": a.n, "RANK1_BIDS": a.r1, "RANK2_BIDS": a.r2,
			"RANK3_BIDS": a.r3, "MIN_PRICE": a.lo, "MAX_PRICE": a.hi, "AVG_PRICE": float64(a.sum) / float64(a.n), "SUM_PRICE": a.sum})
	}
	return out
}

func q18() *Query {
	return &Query{
		Name: "q18", Sources: []string{"bid"},
		Statements: []string{"CREATE TABLE nexmark_q18 WITH (KEY_FORMAT='JSON') AS SELECT bidder, auction, " +
			"LATEST_BY_OFFSET(price) AS price, LATEST_BY_OFFSET(channel) AS channel, LATEST_BY_OFFSET(url) AS url, " +
			"LATEST_BY_OFFSET(date_time) AS date_time, LATEST_BY_OFFSET(extra) AS extra FROM bid GROUP BY bidder, auction EMIT CHANGES;"},
		Sink: "NEXMARK_Q18", Table: true, Key: KeyJSON, KeyColumns: []string{"BIDDER", "AUCTION"},
		Columns: []string{"BIDDER", "AUCTION", "PRICE", "CHANNEL", "URL", "DATE_TIME", "EXTRA"},
		Deviation: "the last bid per (bidder, auction) by offset (LATEST_BY_OFFSET per column), where Flink's ROW_NUMBER " +
			"orders by dateTime; the same rows here, as bids are produced in event-time order",
		FlinkV1: 54e3, FlinkV2: 65e3, Feldera: 85e3,
		Reference: func(events iter.Seq[Event]) []Row {
			type key struct{ bidder, auction int64 }
			last := map[key]*Bid{}
			var order []key
			for b := range bids(events) {
				k := key{b.Bidder, b.Auction}
				if _, ok := last[k]; !ok {
					order = append(order, k)
				}
				last[k] = b
			}
			out := make([]Row, 0, len(order))
			for _, k := range order {
				b := last[k]
				out = append(out, Row{"BIDDER": b.Bidder, "AUCTION": b.Auction, "PRICE": b.Price, "CHANNEL": b.Channel,
					"URL": b.URL, "DATE_TIME": b.DateTime, "EXTRA": b.Extra})
			}
			return out
		},
	}
}
