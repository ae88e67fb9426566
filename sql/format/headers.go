package format

import "github.com/sqlstream/sqlstream/sql/types"

// headerColumns adapts a codec over the serialized value columns to a
// column list that also holds header columns (HEADERS, HEADER('k')):
// those live in the record headers, so Decode leaves their slots alone and
// Encode does not write them. Callers can pass Schema.Values() as is.
type headerColumns struct {
	inner Codec
	pos   []int // position in the full list of each serialized column
}

var _ Codec = (*headerColumns)(nil)

// serializedColumns splits off the header columns, returning the columns
// the format carries and their positions in cols.
func serializedColumns(cols []types.Column) ([]types.Column, []int) {
	out := make([]types.Column, 0, len(cols))
	pos := make([]int, 0, len(cols))
	for i, c := range cols {
		if c.NS != types.HeaderNS {
			out = append(out, c)
			pos = append(pos, i)
		}
	}
	return out, pos
}

// Decode fills the serialized columns' slots of dst.
func (h *headerColumns) Decode(data []byte, dst []any) error {
	tmp := make([]any, len(h.pos))
	err := h.inner.Decode(data, tmp)
	for j, i := range h.pos {
		dst[i] = tmp[j]
	}
	return err
}

// Encode writes the serialized columns of vals.
func (h *headerColumns) Encode(buf []byte, vals []any) ([]byte, error) {
	tmp := make([]any, len(h.pos))
	for j, i := range h.pos {
		tmp[j] = vals[i]
	}
	return h.inner.Encode(buf, tmp)
}
