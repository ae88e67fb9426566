package functions

import (
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

func benchmarkAdd(b *testing.B, fn string, args []*types.Type, row []any) {
	agg, err := NewAggregates().Resolve(fn, args, nil)
	if err != nil {
		b.Fatal(err)
	}
	acc := agg.Init()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if acc, err = agg.Add(acc, row); err != nil {
			b.Fatal(err)
		}
	}
	if res, _ := agg.Result(acc); res == nil {
		b.Fatal("no result")
	}
}

func BenchmarkCountStarAdd(b *testing.B) { benchmarkAdd(b, "COUNT", nil, nil) }

func BenchmarkCountColumnAdd(b *testing.B) { benchmarkAdd(b, "COUNT", ts(tStr), []any{"x"}) }

func BenchmarkSumBigintAdd(b *testing.B) { benchmarkAdd(b, "SUM", ts(tBig), []any{int64(3)}) }

func BenchmarkSumDoubleAdd(b *testing.B) { benchmarkAdd(b, "SUM", ts(tDbl), []any{1.5}) }

func BenchmarkSumDecimalAdd(b *testing.B) {
	benchmarkAdd(b, "SUM", ts(types.DecimalOf(38, 2)), []any{aggDec("1.25")})
}

// BenchmarkCorrelationWidenedAdd feeds INTEGER columns to CORRELATION's
// DOUBLE parameters: the call wrapper widens each value.
func BenchmarkCorrelationWidenedAdd(b *testing.B) {
	benchmarkAdd(b, "CORRELATION", ts(tInt, tInt), []any{int32(1), int32(2)})
}

// BenchmarkLatestByOffsetAdd is one of Nexmark q18's five
// LATEST_BY_OFFSETs: every update keeps a new entry.
func BenchmarkLatestByOffsetAdd(b *testing.B) {
	benchmarkAdd(b, "LATEST_BY_OFFSET", ts(tStr), []any{"Google"})
}
