package printer

import (
	"context"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
)

// TestPrinterWithoutRegistry: without a registry the formats are guessed
// from the bytes and the bytes shown as text, integers or hex, in
// ksqlDB's words.
func TestPrinterWithoutRegistry(t *testing.T) {
	ctx := context.Background()
	var p Printer
	for _, c := range []struct {
		rec          physical.InRecord
		header, line string
	}{
		{physical.InRecord{Key: []byte("k1"), Value: []byte(`{"A":1}`), Timestamp: 0, Partition: 2},
			"Key format: KAFKA_STRING\nValue format: JSON or KAFKA_STRING\n",
			`rowtime: 1970/01/01 00:00:00.000 Z, key: k1, value: {"A":1}, partition: 2`},
		{physical.InRecord{Key: []byte{0, 0, 0, 7}, Value: []byte{0xff, 0x01}, Timestamp: 1500},
			"Key format: KAFKA_INT\nValue format: KAFKA_BYTES\n",
			`rowtime: 1970/01/01 00:00:01.500 Z, key: 7, value: 0xff01, partition: 0`},
		{physical.InRecord{Key: []byte{0, 0, 0, 0, 0, 0, 1, 0}, Value: nil},
			"Key format: KAFKA_BIGINT or KAFKA_DOUBLE\nValue format: ¯\\_(ツ)_/¯ - no data processed\n",
			`rowtime: 1970/01/01 00:00:00.000 Z, key: 256, value: <null>, partition: 0`},
	} {
		if got := p.Header(ctx, &c.rec); got != c.header {
			t.Errorf("header %q, want %q", got, c.header)
		}
		if got := p.Line(ctx, &c.rec); got != c.line {
			t.Errorf("line %q, want %q", got, c.line)
		}
	}
}

// TestLines: PRINT's INTERVAL prints every n-th record, the first led by
// the header, until the client takes no more.
func TestLines(t *testing.T) {
	var got []string
	fn := Printer{}.Lines(context.Background(), 2, func(line string) bool {
		got = append(got, line)
		return len(got) < 2
	})
	for i := range 6 {
		if !fn(&physical.InRecord{Key: []byte("k"), Value: []byte{'0' + byte(i)}, Offset: int64(i)}) {
			break
		}
	}
	if len(got) != 2 || got[0] != "Key format: KAFKA_STRING\nValue format: JSON or KAFKA_STRING\nrowtime: 1970/01/01 00:00:00.000 Z, key: k, value: 0, partition: 0" ||
		got[1] != "rowtime: 1970/01/01 00:00:00.000 Z, key: k, value: 2, partition: 0" {
		t.Errorf("lines %q", got)
	}
}
