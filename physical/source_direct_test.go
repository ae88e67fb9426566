package physical

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// rowCopier keeps a copy of every row it is given (values copied: the
// source refills its slice for the next).
type rowCopier struct{ rows []types.Row }

func (k *rowCopier) Process(row *types.Row) error {
	c := *row
	c.Values = append([]any(nil), row.Values...)
	k.rows = append(k.rows, c)
	return nil
}
func (k *rowCopier) borrowsValues() bool { return true }

type countingLog struct{ n int }

func (l *countingLog) Log(*LogEntry) { l.n++ }

// TestSourceDecodesStraightIntoTheRow: a source whose value columns are
// one run of the row (a keyed or keyless stream, q0's bid) decodes them
// into the row itself, and its rows are those of the decode into its own
// buffer and a copy (the way a source whose value columns are not one
// run still goes, a header column between them): a full record, one
// missing members (NULL), a JSON null (a tombstone of NULLs), a broken
// record (logged, skipped) and one after it; a record costs no more
// allocations than the copy did.
func TestSourceDecodesStraightIntoTheRow(t *testing.T) {
	val := func(n string, ty *types.Type) types.Column { return types.Column{Name: n, Type: ty, NS: types.ValueNS} }
	for _, c := range []struct {
		name string
		cols []types.Column
		run  bool
	}{
		{"keyed", []types.Column{{Name: "K", Type: types.StringType, NS: types.KeyNS}, val("A", types.BigintType), val("V", types.StringType)}, true},
		{"keyless", []types.Column{val("A", types.BigintType), val("V", types.StringType)}, true},
		{"header between", []types.Column{val("A", types.BigintType), {Name: "H", Type: types.BytesType, NS: types.HeaderNS, HeaderKey: "h"}, val("V", types.StringType)}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := &planner.Source{Topic: "s", Kind: ast.Stream, KeyFormat: format.Spec{Name: format.Kafka}, ValueFormat: format.Spec{Name: format.JSON},
				Schema: &types.Schema{Columns: c.cols}}
			records := []*InRecord{
				{Key: []byte("k1"), Value: []byte(`{"A":12345678,"V":"a string"}`), Offset: 1},
				{Key: []byte("k2"), Value: []byte(`{"V":"only V"}`), Offset: 2},
				{Key: []byte("k3"), Value: []byte(`null`), Offset: 3},
				{Key: []byte("k4"), Value: []byte(`{"A":"not a number","V":"x"}`), Offset: 4},
				{Key: []byte("k5"), Value: []byte(`{"A":7,"V":"after"}`), Offset: 5, Headers: []Header{{Key: "h", Value: []byte("hv")}}},
			}
			run := func(direct bool) ([]types.Row, int) {
				keep, log := &rowCopier{}, &countingLog{}
				op, err := newSourceOp(&TaskEnv{Log: log}, src, keep, nil)
				if err != nil {
					t.Fatal(err)
				}
				if (op.valAt >= 0) != c.run {
					t.Fatalf("valAt %d for value columns at %v", op.valAt, op.valIdx)
				}
				if !direct {
					op.valAt = -1
				}
				for _, r := range records {
					if err := op.ProcessRaw(r); err != nil {
						t.Fatal(err)
					}
				}
				return keep.rows, log.n
			}
			got, logged := run(true)
			want, wantLogged := run(false)
			if !reflect.DeepEqual(got, want) || logged != wantLogged || logged != 1 || len(got) != 4 {
				t.Fatalf("rows %v (%d logged), want %v (%d logged, 1) and 4 rows", got, logged, want, wantLogged)
			}
			if !got[2].Tombstone || fmt.Sprint(got[1].Values) == fmt.Sprint(got[0].Values) {
				t.Errorf("rows %v", got)
			}
			for _, direct := range []bool{false, true} {
				op, err := newSourceOp(&TaskEnv{}, src, &discardBorrower{}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !direct {
					op.valAt = -1
				}
				r := records[0]
				allocs := testing.AllocsPerRun(200, func() {
					if err := op.ProcessRaw(r); err != nil {
						t.Fatal(err)
					}
				})
				if allocs > 1 { // the strings' slab and the boxes' arena, amortized
					t.Errorf("direct %v: a record costs %.1f allocations", direct, allocs)
				}
			}
		})
	}
}

// BenchmarkSourceBid decodes the Nexmark generator's bid (lower-case
// names, JSON, keyless: q0's source) into a row, straight into the row
// ("direct") and into the source's buffer and a copy ("copied").
func BenchmarkSourceBid(b *testing.B) {
	cols := []types.Column{{Name: "AUCTION", Type: types.BigintType, NS: types.ValueNS}, {Name: "BIDDER", Type: types.BigintType, NS: types.ValueNS},
		{Name: "PRICE", Type: types.BigintType, NS: types.ValueNS}, {Name: "CHANNEL", Type: types.StringType, NS: types.ValueNS},
		{Name: "URL", Type: types.StringType, NS: types.ValueNS}, {Name: "DATE_TIME", Type: types.BigintType, NS: types.ValueNS},
		{Name: "EXTRA", Type: types.StringType, NS: types.ValueNS}}
	src := &planner.Source{Topic: "bid", Kind: ast.Stream, KeyFormat: format.Spec{Name: format.Kafka}, ValueFormat: format.Spec{Name: format.JSON},
		Schema: &types.Schema{Columns: cols}}
	rec := &InRecord{Topic: "bid", Value: []byte(`{"auction":1007,"bidder":2001,"price":94562,"channel":"channel-4032",` +
		`"url":"https://www.nexmark.com/apple/banana/item.htm?query=1&channel_id=1048576",` +
		`"date_time":1700000000123,"extra":"extra-kgjbjxfnmoqyrmzkhpcrmtnzpcadwcgqqsoxwwqq"}`), Timestamp: 1700000000123}
	for _, direct := range []bool{false, true} {
		b.Run(map[bool]string{false: "copied", true: "direct"}[direct], func(b *testing.B) {
			op, err := newSourceOp(&TaskEnv{}, src, &discardBorrower{}, nil)
			if err != nil {
				b.Fatal(err)
			}
			if !direct {
				op.valAt = -1
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := op.ProcessRaw(rec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
