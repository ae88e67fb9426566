package physical

import (
	"testing"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// inFlight is how many records the benchmark's emitters hold at a time,
// as the producer holds them until their promise.
const inFlight = 512

// keepingEmitter keeps each record's value until inFlight records later
// (Emitter's contract: the sink allocates a buffer per record).
type keepingEmitter struct {
	held [inFlight][]byte
	n    int
}

func (e *keepingEmitter) Emit(r *OutRecord) { e.held[e.n%inFlight] = r.Value; e.n++ }

// recyclingEmitter copies each value into a buffer it recycles inFlight
// records later, as the Kafka runner's outRecords does (BytesCopier).
type recyclingEmitter struct {
	held [inFlight][]byte
	n    int
}

func (e *recyclingEmitter) CopiesBytes() bool { return true }

func (e *recyclingEmitter) Emit(r *OutRecord) {
	b := e.held[e.n%inFlight]
	if cap(b) < len(r.Value) {
		b = make([]byte, len(r.Value))
	}
	e.held[e.n%inFlight] = append(b[:0], r.Value...)
	e.n++
}

// ringLender lends the buffer of the record it will produce, each back
// inFlight records later, as the Kafka runner's outRecords does
// (BufferLender); it copies a record's bytes only when they are not in
// its loan.
type ringLender struct {
	loans  [inFlight]testLoan
	n      int
	copied [][]byte
}

func (e *ringLender) CopiesBytes() bool { return true }

func (e *ringLender) Lend(n int) Loan {
	l := &e.loans[e.n%inFlight]
	if cap(l.buf) < n {
		l.buf = make([]byte, 0, n)
	}
	return l
}

func (e *ringLender) Emit(r *OutRecord) {
	if l, ok := r.Loan.(*testLoan); !ok || !l.in(r.Value) || !l.in(r.Key) {
		e.copied = append(e.copied[:0], append([]byte(nil), r.Value...)) // a first record
	}
	e.n++
}

// BenchmarkSinkBid writes a Nexmark bid (keyless, JSON, Nexmark q0's
// sink) before an emitter that keeps the sink's bytes (a buffer
// allocated per record), one that copies them (the sink's buffers
// reused; the copy is the emitter's) and one that lends the sink the
// buffer it produces (nothing copied: the Kafka runner's).
func BenchmarkSinkBid(b *testing.B) {
	for _, c := range []struct {
		name string
		emit Emitter
	}{{"keeps", &keepingEmitter{}}, {"copies", &recyclingEmitter{}}, {"lends", &ringLender{}}} {
		b.Run(c.name, func(b *testing.B) {
			cols := []types.Column{{Name: "AUCTION", Type: types.BigintType, NS: types.ValueNS}, {Name: "BIDDER", Type: types.BigintType, NS: types.ValueNS},
				{Name: "PRICE", Type: types.BigintType, NS: types.ValueNS}, {Name: "CHANNEL", Type: types.StringType, NS: types.ValueNS},
				{Name: "URL", Type: types.StringType, NS: types.ValueNS}, {Name: "EXTRA", Type: types.StringType, NS: types.ValueNS}}
			target := &planner.Source{Topic: "out", KeyFormat: format.Spec{Name: format.Kafka}, ValueFormat: format.Spec{Name: format.JSON},
				Schema: &types.Schema{Columns: cols}}
			op, err := newSinkOp(&TaskEnv{Emit: c.emit}, target, nil)
			if err != nil {
				b.Fatal(err)
			}
			row := &types.Row{Values: []any{int64(1007), int64(2001), int64(94562), "channel-4032",
				"https://www.nexmark.com/apple/banana/item.htm?query=1&channel_id=1048576", "extra-kgjbjxfnmoqyrmzkhpcrmtnzpcadwcgqqsoxwwqq"}}
			b.ReportAllocs()
			for b.Loop() {
				if err := op.Process(row); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
