package parser

import "testing"

// BenchmarkParse parses a simple CREATE STREAM … AS SELECT.
func BenchmarkParse(b *testing.B) {
	const csas = "CREATE STREAM pageviews_enriched WITH (kafka_topic='enriched', value_format='JSON') AS " +
		"SELECT p.id, p.userid, UCASE(p.page) AS page, p.ts + 1000 AS ts FROM pageviews p " +
		"WHERE p.page LIKE '/home%' AND p.userid IS NOT NULL EMIT CHANGES;"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(csas); err != nil {
			b.Fatal(err)
		}
	}
}
