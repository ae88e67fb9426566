package nexmark

import (
	"iter"
	"time"
)

// q15 and q16: counts of bids, bidders and auctions per day (and
// channel) in three price ranks. Flink writes COUNT(*) FILTER (WHERE …)
// and COUNT(DISTINCT …) FILTER (WHERE …); the dialect has no FILTER, so
// SUM(CASE … THEN 1 ELSE 0 END) and COUNT_DISTINCT(CASE … THEN x END)
// (COUNT_DISTINCT skips NULLs). sqlstream's COUNT_DISTINCT counts
// exactly up to 1,024 values and then, as ksqlDB's, estimates with a
// HyperLogLog sketch (about 0.8 % standard error): those columns are
// checked within 4 %, the others exactly.

const distinctTolerance = 0.04

// rankCols are the SELECT items shared by q15 and q16.
const rankCols = "COUNT(*) AS total_bids, " +
	"SUM(CASE WHEN price < 10000 THEN 1 ELSE 0 END) AS rank1_bids, " +
	"SUM(CASE WHEN price >= 10000 AND price < 1000000 THEN 1 ELSE 0 END) AS rank2_bids, " +
	"SUM(CASE WHEN price >= 1000000 THEN 1 ELSE 0 END) AS rank3_bids, " +
	"COUNT_DISTINCT(bidder) AS total_bidders, " +
	"COUNT_DISTINCT(CASE WHEN price < 10000 THEN bidder END) AS rank1_bidders, " +
	"COUNT_DISTINCT(CASE WHEN price >= 10000 AND price < 1000000 THEN bidder END) AS rank2_bidders, " +
	"COUNT_DISTINCT(CASE WHEN price >= 1000000 THEN bidder END) AS rank3_bidders, " +
	"COUNT_DISTINCT(auction) AS total_auctions, " +
	"COUNT_DISTINCT(CASE WHEN price < 10000 THEN auction END) AS rank1_auctions, " +
	"COUNT_DISTINCT(CASE WHEN price >= 10000 AND price < 1000000 THEN auction END) AS rank2_auctions, " +
	"COUNT_DISTINCT(CASE WHEN price >= 1000000 THEN auction END) AS rank3_auctions"

func rankColumns() []string {
	return []string{"TOTAL_BIDS", "RANK1_BIDS", "RANK2_BIDS", "RANK3_BIDS", "TOTAL_BIDDERS", "RANK1_BIDDERS",
		"RANK2_BIDDERS", "RANK3_BIDDERS", "TOTAL_AUCTIONS", "RANK1_AUCTIONS", "RANK2_AUCTIONS", "RANK3_AUCTIONS"}
}

func distinctApprox() map[string]float64 {
	m := map[string]float64{}
	for _, c := range rankColumns()[4:] {
		m[c] = distinctTolerance
	}
	return m
}

func q15() *Query {
	return &Query{
		Name: "q15", Sources: []string{"bid"},
		Statements: []string{"CREATE TABLE nexmark_q15 WITH (KEY_FORMAT='JSON') AS SELECT FORMAT_TIMESTAMP(date_time, 'yyyy-MM-dd') AS day, " +
			rankCols + " FROM bid GROUP BY FORMAT_TIMESTAMP(date_time, 'yyyy-MM-dd') EMIT CHANGES;"},
		Sink: "NEXMARK_Q15", Table: true, Key: KeyJSON, KeyColumns: []string{"DAY"},
		Columns: append([]string{"DAY"}, rankColumns()...), Approx: distinctApprox(),
		Deviation: "FILTER (WHERE …) is SUM(CASE …) and COUNT_DISTINCT(CASE … END); COUNT_DISTINCT is exact up to " +
			"1,024 values, then a HyperLogLog estimate (checked within 4 %)",
		FlinkV1: 72e3, FlinkV2: 168e3, Feldera: 221e3,
		Reference: func(events iter.Seq[Event]) []Row { return rankReference(events, false) },
	}
}

func q16() *Query {
	return &Query{
		Name: "q16", Sources: []string{"bid"},
		Statements: []string{"CREATE TABLE nexmark_q16 WITH (KEY_FORMAT='JSON') AS SELECT channel, " +
			"FORMAT_TIMESTAMP(date_time, 'yyyy-MM-dd') AS day, MAX(FORMAT_TIMESTAMP(date_time, 'HH:mm')) AS minute, " +
			rankCols + " FROM bid GROUP BY channel, FORMAT_TIMESTAMP(date_time, 'yyyy-MM-dd') EMIT CHANGES;"},
		Sink: "NEXMARK_Q16", Table: true, Key: KeyJSON, KeyColumns: []string{"CHANNEL", "DAY"},
		Columns: append([]string{"CHANNEL", "DAY", "MINUTE"}, rankColumns()...), Approx: distinctApprox(),
		Deviation: "as q15, per channel and day",
		FlinkV1:   19e3, FlinkV2: 45e3, Feldera: 51e3,
		Reference: func(events iter.Seq[Event]) []Row { return rankReference(events, true) },
	}
}

type rankAgg struct {
	bids     [4]int64 // total, rank 1, 2, 3
	bidders  [4]map[int64]bool
	auctions [4]map[int64]bool
	minute   string
}

func rankOf(price int64) int {
	switch {
	case price < 10_000:
		return 1
	case price < 1_000_000:
		return 2
	}
	return 3
}

func rankReference(events iter.Seq[Event], byChannel bool) []Row {
	type key struct{ channel, day string }
	aggs := map[key]*rankAgg{}
	var order []key
	for b := range bids(events) {
		t := time.UnixMilli(b.DateTime).UTC()
		k := key{day: t.Format("2006-01-02")}
		if byChannel {
			k.channel = b.Channel
		}
		a, ok := aggs[k]
		if !ok {
			a = &rankAgg{}
			for i := range 4 {
				a.bidders[i], a.auctions[i] = map[int64]bool{}, map[int64]bool{}
			}
			aggs[k] = a
			order = append(order, k)
		}
		for _, i := range []int{0, rankOf(b.Price)} {
			a.bids[i]++
			a.bidders[i][b.Bidder] = true
			a.auctions[i][b.Auction] = true
		}
		a.minute = max(a.minute, t.Format("15:04"))
	}
	out := make([]Row, 0, len(order))
	for _, k := range order {
		a := aggs[k]
		r := Row{"DAY": k.day}
		if byChannel {
			r["CHANNEL"], r["MINUTE"] = k.channel, a.minute
		}
		names := rankColumns()
		for i := range 4 {
			r[names[i]] = a.bids[i]
			r[names[4+i]] = int64(len(a.bidders[i]))
			r[names[8+i]] = int64(len(a.auctions[i]))
		}
		out = append(out, r)
	}
	return out
}
