package format

import (
	"fmt"
	"strings"
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

// memoColumns has an upper-case column, a lower-case one whose name is
// another's lower case (an exact match must win over the upper-cased
// one), and one past ASCII (upper-cased by strings.ToUpper).
const memoColumns = "AUCTION BIGINT\nPRICE BIGINT\nprice STRING\nCHANNEL STRING\nÉTÉ STRING"

// memoRecords change the members' order, spelling and number from
// record to record, each record twice (the second meets the memo of
// the first): case variants, duplicates, escaped names, names that
// extend or shorten a remembered one, missing and unknown members, more
// members than the memo keeps, and broken records.
func memoRecords() []string {
	many := `{`
	for i := range 30 {
		many += fmt.Sprintf(`"u%d":%d,`, i, i)
	}
	many += `"auction":9,"price":"p"}`
	rs := []string{
		`{"auction":1,"price":2,"PRICE":3,"channel":"a","été":"x"}`,
		`{"AUCTION":1,"PRICE":2,"price":"3","CHANNEL":"a","ÉTÉ":"x"}`,
		`{"channel":"b","auction":3,"price":"x"}`,
		`{"auction":1,"auction":5,"AUCTION":6,"auction":7}`,
		`{"Auction":1,"AUCTION":2,"auction":3}`,
		`{"auc\u0074ion":7,"pri\"ce":1,"price":8}`,
		`{"auctionX":1,"auctio":2,"auction":4}`,
		`{"auction":7}`, `{}`, many,
		`{ "auction" : 1 , "price" : 2 }`,
		`{"été":"x","ÉTÉ":"y","éTé":"z"}`,
		`{"auction":"q"}`, `{"auction":1,"pri`, `{"auction":1,"price`, `{"auction":1,"price":`,
		`{"auction` + "\x01" + `":1}`, `{"auction":1,"price"`, `{"auction":1,"price":2,"channel":"a` + "\xff" + `"}`,
		`{"auction":1,"price":2,"channel":"a","été":"x"}`,
	}
	var out []string
	for _, r := range rs {
		out = append(out, r, r)
	}
	return out
}

// TestTaskJSONMemberMemo: a task's decoder, which resolves the member
// names it saw in the same places of the last record without a lookup,
// decodes the records of memoRecords to the values and errors (offsets
// included) of a decoder without the memo, every column read and each
// one unread.
func TestTaskJSONMemberMemo(t *testing.T) {
	cols := parseColumns(t, memoColumns, types.ValueNS)
	masks := append([][]bool{nil}, readMasks(len(cols))...)
	for _, read := range masks {
		if read == nil {
			read = []bool{true, true, true, true, true}
		}
		compareDecodes(t, Spec{Name: JSON}, cols, read, memoRecords())
	}
}

// TestTaskJSONMemberMemoRelearns: the memo holds the names of the last
// record, position by position, re-learned when the order changes, and
// no escaped name.
func TestTaskJSONMemberMemoRelearns(t *testing.T) {
	c, err := NewTaskValueDecoder(Spec{Name: JSON}, parseColumns(t, memoColumns, types.ValueNS), nil)
	if err != nil {
		t.Fatal(err)
	}
	memo := c.(*jsonCodec).memo
	dst := make([]any, 5)
	for _, r := range []struct{ record, want string }{
		{`{"auction":1,"price":2}`, `auction=0~ price=2`},
		{`{"price":"2","AUCTION":1}`, `price=2 AUCTION=0`},
		{`{"pr\u0069ce":"2","PRICE":1,"x":0}`, `- PRICE=1 x=-1~`},
	} {
		if err := c.Decode([]byte(r.record), dst); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range memo.seen {
			switch {
			case !m.ok:
				got = append(got, "-")
			case m.exact:
				got = append(got, fmt.Sprintf("%s=%d", m.name, m.col))
			default:
				got = append(got, fmt.Sprintf("%s=%d~", m.name, m.col))
			}
		}
		if s := strings.Join(got[:len(strings.Fields(r.want))], " "); s != r.want {
			t.Errorf("after %s the memo is %s, want %s", r.record, s, r.want)
		}
	}
}

// FuzzTaskJSONMemberMemo: a task's decoder that decodes a, b and a again
// (the memo learned from one record meeting the next) gives the values
// and errors of a decoder without the memo.
func FuzzTaskJSONMemberMemo(f *testing.F) {
	rs := memoRecords()
	for i := 0; i+2 < len(rs); i += 2 {
		f.Add([]byte(rs[i]), []byte(rs[i+2]))
	}
	cols := parseColumns(f, memoColumns, types.ValueNS)
	plain, err := NewValueCodec(Spec{Name: JSON}, cols)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		task, err := NewTaskValueDecoder(Spec{Name: JSON}, cols, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range [][]byte{a, b, a} {
			want, got := make([]any, len(cols)), make([]any, len(cols))
			werr, gerr := plain.Decode(r, want), task.Decode(r, got)
			if fmt.Sprint(gerr) != fmt.Sprint(werr) || gerr == nil && describe(got) != describe(want) {
				t.Fatalf("%q after %q: %s (%v), want %s (%v)", r, a, describe(got), gerr, describe(want), werr)
			}
		}
	})
}
