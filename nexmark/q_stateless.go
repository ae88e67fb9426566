package nexmark

import (
	"iter"
	"strings"
	"time"
)

// Stateless queries: projections and filters over bids; each is checked
// row for row.

func bids(events iter.Seq[Event]) iter.Seq[*Bid] {
	return func(yield func(*Bid) bool) {
		for ev := range events {
			if ev.Kind == KindBid && !yield(ev.Bid) {
				return
			}
		}
	}
}

// q1Price is 0.908 · price as the DECIMAL(23,3) ksqlDB computes.
func q1Price(price int64) float64 { return float64(price*908) / 1000 }

func q0() *Query {
	return &Query{
		Name: "q0", Sources: []string{"bid"},
		Statements: []string{"CREATE STREAM nexmark_q0 AS SELECT auction, bidder, price, date_time, extra FROM bid EMIT CHANGES;"},
		Sink:       "NEXMARK_Q0",
		Columns:    []string{"AUCTION", "BIDDER", "PRICE", "DATE_TIME", "EXTRA"},
		Deviation:  "none (pass-through; Flink's projects every bid column, this one those of the suite's sink)",
		FlinkV1:    155e3, FlinkV2: 379e3, Feldera: 436e3,
		Reference: func(events iter.Seq[Event]) []Row {
			var out []Row
			for b := range bids(events) {
				out = append(out, Row{"AUCTION": b.Auction, "BIDDER": b.Bidder, "PRICE": b.Price, "DATE_TIME": b.DateTime, "EXTRA": b.Extra})
			}
			return out
		},
	}
}

func q1() *Query {
	return &Query{
		Name: "q1", Sources: []string{"bid"},
		Statements: []string{"CREATE STREAM nexmark_q1 AS SELECT auction, bidder, 0.908 * price AS price, date_time, extra FROM bid EMIT CHANGES;"},
		Sink:       "NEXMARK_Q1",
		Columns:    []string{"AUCTION", "BIDDER", "PRICE", "DATE_TIME", "EXTRA"},
		Deviation:  "none: 0.908 * price is DECIMAL(23,3), as in Flink",
		FlinkV1:    158e3, FlinkV2: 395e3, Feldera: 412e3,
		Reference: func(events iter.Seq[Event]) []Row {
			var out []Row
			for b := range bids(events) {
				out = append(out, Row{"AUCTION": b.Auction, "BIDDER": b.Bidder, "PRICE": q1Price(b.Price), "DATE_TIME": b.DateTime, "EXTRA": b.Extra})
			}
			return out
		},
	}
}

func q2() *Query {
	return &Query{
		Name: "q2", Sources: []string{"bid"},
		Statements: []string{"CREATE STREAM nexmark_q2 AS SELECT auction, price FROM bid WHERE auction % 123 = 0 EMIT CHANGES;"},
		Sink:       "NEXMARK_Q2",
		Columns:    []string{"AUCTION", "PRICE"},
		Deviation:  "MOD(auction, 123) is written auction % 123 (the dialect has no MOD)",
		FlinkV1:    175e3, FlinkV2: 414e3, Feldera: 422e3,
		Reference: func(events iter.Seq[Event]) []Row {
			var out []Row
			for b := range bids(events) {
				if b.Auction%123 == 0 {
					out = append(out, Row{"AUCTION": b.Auction, "PRICE": b.Price})
				}
			}
			return out
		},
	}
}

func q10() *Query {
	return &Query{
		Name: "q10", Sources: []string{"bid"},
		Statements: []string{"CREATE STREAM nexmark_q10 AS SELECT auction, bidder, price, date_time, extra, " +
			"FORMAT_TIMESTAMP(date_time, 'yyyy-MM-dd') AS dt, FORMAT_TIMESTAMP(date_time, 'HH:mm') AS hm FROM bid EMIT CHANGES;"},
		Sink:      "NEXMARK_Q10",
		Columns:   []string{"AUCTION", "BIDDER", "PRICE", "DATE_TIME", "EXTRA", "DT", "HM"},
		Deviation: "the rows go to a Kafka topic, not to files partitioned by dt/hm (no file sink); times formatted in UTC",
		FlinkV1:   58e3, FlinkV2: 133e3,
		Reference: func(events iter.Seq[Event]) []Row {
			var out []Row
			for b := range bids(events) {
				t := time.UnixMilli(b.DateTime).UTC()
				out = append(out, Row{"AUCTION": b.Auction, "BIDDER": b.Bidder, "PRICE": b.Price, "DATE_TIME": b.DateTime,
					"EXTRA": b.Extra, "DT": t.Format("2006-01-02"), "HM": t.Format("15:04")})
			}
			return out
		},
	}
}

func q14() *Query {
	const hour = "CAST(FORMAT_TIMESTAMP(date_time, 'HH') AS INT)"
	return &Query{
		Name: "q14", Sources: []string{"bid"},
		Statements: []string{"CREATE STREAM nexmark_q14 AS SELECT auction, bidder, 0.908 * price AS price, " +
			"CASE WHEN " + hour + " >= 8 AND " + hour + " <= 18 THEN 'dayTime' " +
			"WHEN " + hour + " <= 6 OR " + hour + " >= 20 THEN 'nightTime' ELSE 'otherTime' END AS bid_time_type, " +
			"date_time, extra, LEN(extra) - LEN(REPLACE(extra, 'c', '')) AS c_counts " +
			"FROM bid WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000 EMIT CHANGES;"},
		Sink:      "NEXMARK_Q14",
		Columns:   []string{"AUCTION", "BIDDER", "PRICE", "BID_TIME_TYPE", "DATE_TIME", "EXTRA", "C_COUNTS"},
		Deviation: "HOUR(dateTime) is CAST(FORMAT_TIMESTAMP(date_time, 'HH') AS INT) (UTC); the count_char UDF is LEN(extra) - LEN(REPLACE(extra, 'c', ''))",
		FlinkV1:   161e3, FlinkV2: 259e3, Feldera: 429e3,
		Reference: func(events iter.Seq[Event]) []Row {
			var out []Row
			for b := range bids(events) {
				if p := b.Price * 908; p <= 1_000_000_000 || p >= 50_000_000_000 {
					continue
				}
				out = append(out, Row{"AUCTION": b.Auction, "BIDDER": b.Bidder, "PRICE": q1Price(b.Price),
					"BID_TIME_TYPE": q14TimeType(time.UnixMilli(b.DateTime).UTC().Hour()), "DATE_TIME": b.DateTime,
					"EXTRA": b.Extra, "C_COUNTS": int64(strings.Count(b.Extra, "c"))})
			}
			return out
		},
	}
}

func q14TimeType(h int) string {
	switch {
	case h >= 8 && h <= 18:
		return "dayTime"
	case h <= 6 || h >= 20:
		return "nightTime"
	}
	return "otherTime"
}

func q21() *Query {
	const extract = "REGEXP_EXTRACT('(&|^)channel_id=([^&]*)', url, 2)"
	return &Query{
		Name: "q21", Sources: []string{"bid"},
		Statements: []string{"CREATE STREAM nexmark_q21 AS SELECT auction, bidder, price, channel, " +
			"CASE WHEN LCASE(channel) = 'apple' THEN '0' WHEN LCASE(channel) = 'google' THEN '1' " +
			"WHEN LCASE(channel) = 'facebook' THEN '2' WHEN LCASE(channel) = 'baidu' THEN '3' ELSE " + extract + " END AS channel_id " +
			"FROM bid WHERE " + extract + " IS NOT NULL OR LCASE(channel) IN ('apple', 'google', 'facebook', 'baidu') EMIT CHANGES;"},
		Sink:      "NEXMARK_Q21",
		Columns:   []string{"AUCTION", "BIDDER", "PRICE", "CHANNEL", "CHANNEL_ID"},
		Deviation: "REGEXP_EXTRACT takes (pattern, string, group) in ksqlDB's order",
		FlinkV1:   98e3, FlinkV2: 147e3, Feldera: 415e3,
		Reference: func(events iter.Seq[Event]) []Row {
			hot := map[string]string{"apple": "0", "google": "1", "facebook": "2", "baidu": "3"}
			var out []Row
			for b := range bids(events) {
				id, ok := hot[strings.ToLower(b.Channel)]
				if !ok {
					if id, ok = channelID(b.URL); !ok {
						continue
					}
				}
				out = append(out, Row{"AUCTION": b.Auction, "BIDDER": b.Bidder, "PRICE": b.Price, "CHANNEL": b.Channel, "CHANNEL_ID": id})
			}
			return out
		},
	}
}

// channelID is what (&|^)channel_id=([^&]*) captures in url.
func channelID(url string) (string, bool) {
	var rest string
	switch i := strings.Index(url, "&channel_id="); {
	case strings.HasPrefix(url, "channel_id="):
		rest = url[len("channel_id="):]
	case i >= 0:
		rest = url[i+len("&channel_id="):]
	default:
		return "", false
	}
	if j := strings.IndexByte(rest, '&'); j >= 0 {
		rest = rest[:j]
	}
	return rest, true
}

func q22() *Query {
	return &Query{
		Name: "q22", Sources: []string{"bid"},
		Statements: []string{"CREATE STREAM nexmark_q22 AS SELECT auction, bidder, price, channel, " +
			"SPLIT(url, '/')[4] AS dir1, SPLIT(url, '/')[5] AS dir2, SPLIT(url, '/')[6] AS dir3 FROM bid EMIT CHANGES;"},
		Sink:      "NEXMARK_Q22",
		Columns:   []string{"AUCTION", "BIDDER", "PRICE", "CHANNEL", "DIR1", "DIR2", "DIR3"},
		Deviation: "SPLIT_INDEX(url, '/', 3..5) is SPLIT(url, '/')[4..6] (ksqlDB arrays are 1-based)",
		FlinkV1:   130e3, FlinkV2: 212e3, Feldera: 394e3,
		Reference: func(events iter.Seq[Event]) []Row {
			var out []Row
			for b := range bids(events) {
				parts := strings.Split(b.URL, "/")
				out = append(out, Row{"AUCTION": b.Auction, "BIDDER": b.Bidder, "PRICE": b.Price, "CHANNEL": b.Channel,
					"DIR1": part(parts, 3), "DIR2": part(parts, 4), "DIR3": part(parts, 5)})
			}
			return out
		},
	}
}

// part is parts[i], or nil past the end (as ksqlDB's out-of-range index).
func part(parts []string, i int) any {
	if i < len(parts) {
		return parts[i]
	}
	return nil
}
