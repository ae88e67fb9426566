package format

import (
	"github.com/sqlstream/sqlstream/sql/format/internal/boxes"
	"github.com/sqlstream/sqlstream/sql/types"
)

// jsonCodec is the JSON format for a fixed list of columns: an object with
// one member per column, or the bare value of a single unwrapped column.
type jsonCodec struct {
	cols      []types.Column
	unwrapped bool
	single    *jsonNode   // unwrapped
	obj       *jsonObject // wrapped
	// enc writes the columns for Encode: `"NAME":` (`,"NAME":` after
	// the first) and a value; one column, no name, when unwrapped.
	enc []jsonColumn
	// strs sizes a record's arena of strings (boxCounts of the columns).
	strs int
	// skip marks the columns Decode checks but does not materialize
	// (NewValueDecoder); nil: none.
	skip []bool
	// task: the decoder is one task's (NewTaskValueDecoder), its strings
	// copied into this slab and boxed from its arena, as its BIGINT,
	// TIMESTAMP and DOUBLE values are; nil: a record's strings share a
	// copy of its text and a per-record arena, its numbers boxed by Go.
	task *keyArena
	// memo: the task's decoder remembers the record's member names by
	// position (memberMemo); nil for the others, which may be shared.
	memo *memberMemo
}

var _ Codec = (*jsonCodec)(nil)

func newJSONCodec(cols []types.Column, unwrapped bool) *jsonCodec {
	c := &jsonCodec{cols: cols, unwrapped: unwrapped}
	ts := make([]*types.Type, len(cols))
	for i, col := range cols {
		ts[i] = col.Type
	}
	c.strs = boxCounts(ts)
	if unwrapped {
		c.single = newJSONNode(cols[0].Type)
		c.enc = []jsonColumn{newJSONColumn(nil, cols[0].Type)}
		return c
	}
	names := make([]string, len(cols))
	c.enc = make([]jsonColumn, len(cols))
	for i, col := range cols {
		names[i] = col.Name
		var prefix []byte
		if i > 0 {
			prefix = append(prefix, ',')
		}
		prefix = append(appendJSONString(prefix, col.Name), ':')
		c.enc[i] = newJSONColumn(prefix, col.Type)
	}
	c.obj = newJSONObject(names, ts)
	return c
}

// pruned implements columnPruner: the unread columns are checked only.
func (c *jsonCodec) pruned(read []bool) Codec {
	p := *c
	p.skip = make([]bool, len(read))
	var kept []*types.Type
	for i, r := range read {
		p.skip[i] = !r
		if r {
			kept = append(kept, c.cols[i].Type)
		}
	}
	p.strs = boxCounts(kept)
	if c.unwrapped {
		return &p
	}
	obj := *c.obj
	obj.skip = p.skip
	p.obj = &obj
	return &p
}

// Decode parses one JSON record into dst.
func (c *jsonCodec) Decode(data []byte, dst []any) error {
	s := scanner{data: data, task: c.task}
	if c.task == nil {
		s.arena = boxes.New(0, c.strs)
	}
	if err := c.decode(&s, dst); err != nil {
		return err
	}
	if s.peek() != 0 {
		return s.fail("end of JSON", "unexpected data after the JSON value")
	}
	return nil
}

func (c *jsonCodec) decode(s *scanner, dst []any) error {
	if c.unwrapped {
		if s.peek() == 0 {
			dst[0] = nil
			return nil
		}
		v, err := c.single.read(s, c.skip != nil && c.skip[0])
		if err != nil {
			return prefixColumn(err, "`"+c.cols[0].Name+"`")
		}
		dst[0] = v
		return nil
	}
	switch s.peek() {
	case 0:
		return ErrNullRecord
	case 'n':
		if err := s.literal("null"); err != nil {
			return err
		}
		return ErrNullRecord
	case '{':
		return c.obj.decodeSeen(s, dst, c.memo)
	}
	return s.fail("JSON object", "cannot convert JSON "+tokenName(s.peek())+" to a record of "+
		columnList(c.cols))
}

// Encode appends vals as a JSON object (or the bare value when unwrapped;
// a NULL unwrapped value encodes as a nil record).
func (c *jsonCodec) Encode(buf []byte, vals []any) ([]byte, error) {
	if c.unwrapped {
		if isNull(vals[0]) {
			return nil, nil
		}
		return c.enc[0].append(buf, vals[0])
	}
	buf = append(buf, '{')
	for i := range c.enc {
		e := &c.enc[i]
		buf = append(buf, e.prefix...)
		var err error
		if buf, err = e.append(buf, vals[i]); err != nil {
			return buf, err
		}
	}
	return append(buf, '}'), nil
}
