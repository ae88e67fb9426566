package format

import (
	"syscall"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/sql/types"
)

// nexmarkBid is a bid as the Nexmark generator writes it (nexmark
// AppendJSON): lower-case member names in the DDL's order, which the
// upper-case columns match only case-insensitively.
const nexmarkBid = `{"auction":1007,"bidder":2001,"price":94562,"channel":"channel-4032",` +
	`"url":"https://www.nexmark.com/apple/banana/item.htm?query=1&channel_id=1048576",` +
	`"date_time":1700000000123,"extra":"extra-kgjbjxfnmoqyrmzkhpcrmtnzpcadwcgqqsoxwwqq"}`

func bidColumns(t testing.TB) []types.Column {
	return parseColumns(t, "AUCTION BIGINT\nBIDDER BIGINT\nPRICE BIGINT\nCHANNEL STRING\nURL STRING\nDATE_TIME BIGINT\nEXTRA STRING", types.ValueNS)
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkTaskBidDecode decodes the Nexmark generator's bid with a
// task's decoder (the source's, physical.sourceOp) reading every column
// and q0's five (CHANNEL and URL pruned). cpu-ns/op is the process's CPU
// time per decode, steadier than ns/op on a shared machine.
func BenchmarkTaskBidDecode(b *testing.B) {
	cols := bidColumns(b)
	data := []byte(nexmarkBid)
	for _, r := range []struct {
		name string
		read []bool
	}{{"all", nil}, {"q0", []bool{true, true, true, false, false, true, true}}} {
		b.Run(r.name, func(b *testing.B) {
			c, err := NewTaskValueDecoder(Spec{Name: JSON}, cols, r.read)
			if err != nil {
				b.Fatal(err)
			}
			dst := make([]any, len(cols))
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				if err := c.Decode(data, dst); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}
