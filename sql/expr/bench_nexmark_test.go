package expr

import (
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/types"
)

// nexmarkBidSchema is the bid stream's value columns (nexmark/queries.go).
var nexmarkBidSchema = &types.Schema{Columns: []types.Column{
	{Name: "AUCTION", Type: types.BigintType}, {Name: "BIDDER", Type: types.BigintType}, {Name: "PRICE", Type: types.BigintType},
	{Name: "CHANNEL", Type: types.StringType}, {Name: "URL", Type: types.StringType},
	{Name: "DATE_TIME", Type: types.TimestampType}, {Name: "EXTRA", Type: types.StringType},
}}

// nexmarkRows are bids like the generator's: hot channels and others,
// URLs with and without a channel_id, hours across the day.
func nexmarkRows() []*types.Row {
	channels := []string{"Apple", "Google", "Facebook", "Baidu", "ch-17", "ch-42"}
	urls := []string{"https://www.nexmark.com/ukn/qgh/ddm/item.htm?query=1",
		"https://www.nexmark.com/ukn/qgh/ddm/item.htm?query=1&channel_id=1234",
		"https://www.nexmark.com/zsrc/wph/uyz/item.htm?query=1&channel_id=58"}
	var rows []*types.Row
	for i := range 24 {
		rows = append(rows, &types.Row{Values: []any{int64(1000 + i), int64(2000 + i), int64(900_000 + 400_000*i),
			channels[i%len(channels)], urls[i%len(urls)], types.Timestamp(int64(i) * 3_600_000), strings.Repeat("abc", i)}})
	}
	return rows
}

// BenchmarkNexmarkRow evaluates the WHERE, then (when it passes) the
// SELECT items of the stateless Nexmark queries that repeat
// subexpressions, row after row, as the filter and project operators do.
func BenchmarkNexmarkRow(b *testing.B) {
	const hour = "CAST(FORMAT_TIMESTAMP(date_time, 'HH') AS INT)"
	const extract = "REGEXP_EXTRACT('(&|^)channel_id=([^&]*)', url, 2)"
	queries := []struct {
		name  string
		where string
		items []string
	}{
		{"q14", "0.908 * price > 1000000 AND 0.908 * price < 50000000", []string{"auction", "bidder", "0.908 * price",
			"CASE WHEN " + hour + " >= 8 AND " + hour + " <= 18 THEN 'dayTime' WHEN " + hour + " <= 6 OR " + hour + " >= 20 THEN 'nightTime' ELSE 'otherTime' END",
			"date_time", "extra", "LEN(extra) - LEN(REPLACE(extra, 'c', ''))"}},
		{"q21", extract + " IS NOT NULL OR LCASE(channel) IN ('apple', 'google', 'facebook', 'baidu')", []string{"auction", "bidder", "price", "channel",
			"CASE WHEN LCASE(channel) = 'apple' THEN '0' WHEN LCASE(channel) = 'google' THEN '1' WHEN LCASE(channel) = 'facebook' THEN '2' " +
				"WHEN LCASE(channel) = 'baidu' THEN '3' ELSE " + extract + " END"}},
		{"q22", "", []string{"auction", "bidder", "price", "channel", "SPLIT(url, '/')[4]", "SPLIT(url, '/')[5]", "SPLIT(url, '/')[6]"}},
	}
	reg := functions.NewRegistry()
	scope := SchemaScope(nexmarkBidSchema, nil, false)
	compile := func(text string) *Compiled {
		e, err := parser.ParseExpr(text)
		if err != nil {
			b.Fatal(err)
		}
		c, err := Compile(e, scope, reg)
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	rows := nexmarkRows()
	for _, q := range queries {
		b.Run(q.name, func(b *testing.B) {
			var cs []*Compiled
			if q.where != "" {
				cs = append(cs, compile(q.where))
			}
			for _, it := range q.items {
				cs = append(cs, compile(it))
			}
			ev := newRowEvaluator(cs)
			out := make([]any, len(q.items))
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if err := ev(rows[i%len(rows)], q.where != "", out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
