package physical

import (
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// joinStoreKey is a join store's key of a row: the join key, followed
// for a join of windowed sources by the row's window (end and start:
// session bounds must match exactly, and time windows of one size have
// equal ends when their starts are equal). Rows without a window keep
// the plain key bytes.
func joinStoreKey(codec format.Codec, key []any, w *types.Window) ([]byte, error) {
	b, err := codec.Encode(nil, key)
	if err != nil || w == nil {
		return b, err
	}
	return format.AppendWindow(b, *w, true), nil
}

// splitJoinStoreKey reads a join store's key back into the join key's
// values (key) and its window (nil: not windowed).
func splitJoinStoreKey(codec format.Codec, b []byte, key []any, windowed bool) (*types.Window, error) {
	if !windowed {
		return nil, codec.Decode(b, key)
	}
	inner, w, err := format.DecodeWindowedKey(b, true)
	if err != nil {
		return nil, err
	}
	return &w, codec.Decode(inner, key)
}
