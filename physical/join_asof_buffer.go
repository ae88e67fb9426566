package physical

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// bufferTimeKey holds the buffer's stream time; entry keys are longer.
var bufferTimeKey = []byte{0}

// bufferKeyLen is an entry key's length: ts(8) ‖ offset(8) ‖ n(4).
const bufferKeyLen = 20

// asOfBuffer holds the stream rows of an as-of join with a GRACE PERIOD
// until stream time passes their time plus the grace, so that table
// updates arriving late (by less than the grace) are seen: Kafka Streams'
// time-ordered stream–table join buffer (KIP-923). Entries are keyed
// ts ‖ offset ‖ n (n counts rows of one offset, so a replayed record
// overwrites its own entry) → partition(4) ‖ null-key flag ‖ values
// (the stream's value format, asOfFormats; JSON for legacy stores); the
// stream time, the largest row time seen, is kept under its
// own key so both are changelogged and restored.
type asOfBuffer struct {
	store      Store
	value      format.Codec
	cols       int
	grace      int64
	streamTime int64
	offset     int64 // offset of the last row put, for n
	n          uint32
}

// openAsOfBuffer opens a task's buffer; values are encoded in values
// with the stream rows' columns (asOfBufferColumns).
func openAsOfBuffer(env *TaskEnv, n *planner.Join, values format.Spec) (*asOfBuffer, error) {
	s, err := env.store(bufferStoreName(n))
	if err != nil {
		return nil, err
	}
	cols := asOfBufferColumns(n)
	b := &asOfBuffer{store: s, cols: len(cols), grace: n.AsOf.Grace, streamTime: -1, offset: -1}
	if b.value, err = format.NewValueCodec(values, cols); err != nil {
		return nil, fmt.Errorf("%s values: %w", bufferStoreName(n), err)
	}
	v, err := s.Get(bufferTimeKey)
	if len(v) == 8 {
		b.streamTime = int64(binary.BigEndian.Uint64(v))
	}
	return b, err
}

// asOfBufferColumns are the columns of the stream rows an as-of join
// buffers: [key…, …] for a re-keyed side (K0…), then the stream's.
func asOfBufferColumns(n *planner.Join) []types.Column {
	var cols []types.Column
	if n.Left.Rekeyed() {
		for i, t := range n.KeyTypes() {
			cols = append(cols, types.Column{Name: fmt.Sprintf("K%d", i), Type: t, NS: types.ValueNS})
		}
	}
	for _, c := range n.Left.Source.Schema.Columns {
		cols = append(cols, types.Column{Name: c.Name, Type: c.Type, NS: types.ValueNS})
	}
	return cols
}

// process buffers row (or joins it at once when it is already older than
// stream time − grace), then joins every buffered row whose time has
// passed, oldest first.
func (b *asOfBuffer) process(row *types.Row, join func(*types.Row) error) error {
	if row.Time < 0 {
		return join(row)
	}
	if err := b.advance(row.Time); err != nil {
		return err
	}
	if row.Time < b.streamTime-b.grace {
		if err := join(row); err != nil {
			return err
		}
	} else if err := b.put(row); err != nil {
		return err
	}
	return b.evict(join)
}

func (b *asOfBuffer) advance(ts int64) error {
	if ts <= b.streamTime {
		return nil
	}
	b.streamTime = ts
	return b.store.Put(bufferTimeKey, binary.BigEndian.AppendUint64(nil, uint64(ts)))
}

func (b *asOfBuffer) put(row *types.Row) error {
	if row.Offset != b.offset {
		b.offset, b.n = row.Offset, 0
	}
	k := binary.BigEndian.AppendUint64(make([]byte, 0, bufferKeyLen), uint64(row.Time))
	k = binary.BigEndian.AppendUint64(k, uint64(row.Offset))
	k = binary.BigEndian.AppendUint32(k, b.n)
	b.n++
	v := binary.BigEndian.AppendUint32(make([]byte, 0, 64), uint32(row.Partition))
	flag := byte(0)
	if row.NullKey {
		flag = 1
	}
	v, err := b.value.Encode(append(v, flag), row.Values)
	if err != nil {
		return err
	}
	return b.store.Put(k, v)
}

// bufferedRow is a row the buffer releases.
type bufferedRow struct {
	key []byte
	row *types.Row
}

// evict joins and forgets the rows with time <= stream time − grace.
func (b *asOfBuffer) evict(join func(*types.Row) error) error {
	due, err := b.due(b.streamTime - b.grace)
	if err != nil {
		return err
	}
	for _, e := range due {
		if err := join(e.row); err != nil {
			return err
		}
		if err := b.store.Put(e.key, nil); err != nil {
			return err
		}
	}
	return nil
}

// due returns the buffered rows with time <= until, in time order.
func (b *asOfBuffer) due(until int64) ([]bufferedRow, error) {
	if until < 0 {
		return nil, nil
	}
	var out []bufferedRow
	var derr error
	end := binary.BigEndian.AppendUint64(nil, uint64(until+1))
	err := b.store.Range(make([]byte, 8), end, func(k, v []byte) bool {
		if len(k) != bufferKeyLen {
			return true
		}
		var r *types.Row
		if r, derr = b.decode(k, v); derr != nil {
			return false
		}
		out = append(out, bufferedRow{key: bytes.Clone(k), row: r})
		return true
	})
	if err == nil {
		err = derr
	}
	return out, err
}

func (b *asOfBuffer) decode(k, v []byte) (*types.Row, error) {
	if len(v) < 5 {
		return nil, fmt.Errorf("corrupt as-of join buffer entry")
	}
	r := &types.Row{Time: int64(binary.BigEndian.Uint64(k)), Offset: int64(binary.BigEndian.Uint64(k[8:])),
		Partition: int32(binary.BigEndian.Uint32(v)), NullKey: v[4] == 1, Values: make([]any, b.cols)}
	return r, b.value.Decode(v[5:], r.Values)
}
