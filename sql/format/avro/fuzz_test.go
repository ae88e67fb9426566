package avro

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

// FuzzAvroDecode feeds arbitrary bytes to decoders of a few schemas: a
// decoder returns values or a *DecodeError, and never panics.
func FuzzAvroDecode(f *testing.F) {
	type target struct {
		cols []types.Column
		dec  Decoder
	}
	var targets []target
	t := &testing.T{}
	for _, defs := range [][]string{roundTripCols, bidCols, {"ROWVAL MAP<STRING, ARRAY<DECIMAL(20, 2)>>"}} {
		cols := columns(t, defs)
		o := Options{Unwrapped: len(cols) == 1}
		text, err := Schema(cols, o)
		if err != nil {
			f.Fatal(err)
		}
		dec, err := NewDecoder(text, nil, cols, o)
		if err != nil {
			f.Fatal(err)
		}
		enc, err := NewEncoder(text, nil, cols, o)
		if err != nil {
			f.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(len(targets)), 9))
		for range 8 {
			row := make([]any, len(cols))
			for i, c := range cols {
				row[i] = randValue(rng, c.Type, 0)
			}
			if o.Unwrapped && row[0] == nil {
				continue
			}
			b, err := enc.Encode([]byte{byte(len(targets))}, row)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
		targets = append(targets, target{cols, dec})
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		tg := targets[int(data[0])%len(targets)]
		err := tg.dec.Decode(data[1:], make([]any, len(tg.cols)))
		var de *DecodeError
		if err != nil && !errors.As(err, &de) {
			t.Fatalf("a decode error that is not a *DecodeError: %v", err)
		}
	})
}
