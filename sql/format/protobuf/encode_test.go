package protobuf

import (
	"bytes"
	"math"
	"math/big"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// The allocation-free path for decimals that fit an int64 writes what the
// big.Int path writes (Java's BigInteger.toByteArray).
func TestDecimalBytesPaths(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, -32768, 1 << 40, math.MaxInt64, math.MinInt64} {
		fast := appendInt64Bytes(nil, v)
		slow := protowire.AppendBytes(nil, twosComplement(big.NewInt(v)))
		if !bytes.Equal(fast, slow) {
			t.Errorf("%d: %x, want %x", v, fast, slow)
		}
		if got := decimalFromBytes(slow[1:], 0); got.Text('f') != big.NewInt(v).String() {
			t.Errorf("%d decodes as %s", v, got.Text('f'))
		}
	}
}
