package physical

import (
	"fmt"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// sinkOp serializes rows and emits them to the target topic with the row's
// ROWTIME as the record timestamp. A table delete is a null value.
type sinkOp struct {
	env      *TaskEnv
	target   *planner.Source
	keyCodec format.Codec
	valCodec format.Codec
	nkeys    int
	valIdx   []int
	vals     []any     // the value columns of the row being written
	rec      OutRecord // the record handed to the emitter (which keeps its slices or copies them, not it)
	tsIdx    int       // the sink's TIMESTAMP column, or -1
	parseTS  TimestampParser
	// innerPlacement places a windowed record by its inner key (Kafka
	// Streams' WindowedStreamPartitioner), not by the key with its window.
	innerPlacement bool
	valSize        sizeHint
	keySize        sizeHint
	bufs           encodeBufs // what the key and value are encoded into, without a lender
	// lender lends the buffer of the record the emitter will produce
	// (nil: it lends none), and loan is the one lent and not yet emitted.
	lender BufferLender
	loan   Loan
}

func newSinkOp(env *TaskEnv, target *planner.Source, parseTS TimestampParser) (*sinkOp, error) {
	op := &sinkOp{env: env, target: target, nkeys: target.Schema.NumKeys(), tsIdx: -1, parseTS: parseTS,
		bufs: newEncodeBufs(env.Emit), lender: lenderOf(env.Emit)}
	if target.TimestampColumn != "" {
		op.tsIdx = target.Schema.Find(target.TimestampColumn)
	}
	var vals []types.Column
	for i, c := range target.Schema.Columns {
		if c.NS == types.ValueNS {
			vals = append(vals, c)
			op.valIdx = append(op.valIdx, i)
		}
	}
	var err error
	if op.keyCodec, err = format.NewKeyCodec(target.KeyFormat, target.Schema.Keys()); err != nil {
		return nil, err
	}
	if op.valCodec, err = format.NewValueCodec(target.ValueFormat, vals); err != nil {
		return nil, err
	}
	return op, nil
}

func (op *sinkOp) Process(row *types.Row) error {
	var headers []Header
	if cur := op.env.current; cur != nil {
		headers = userHeaders(cur.Headers) // headers travel with the record, as in Kafka Streams
	}
	room := op.room(row, headers)
	key, ok, err := op.key(row, room)
	if !ok {
		return err
	}
	ts, ok := op.timestamp(row)
	if !ok {
		return nil
	}
	rec := &op.rec
	*rec = OutRecord{Topic: op.target.Topic, Partition: -1, Key: key, Timestamp: ts, Headers: headers}
	if op.innerPlacement && op.windowed(row) {
		rec.PartitionKey = innerKey(key, op.target.Window.Kind == ast.Session)
	}
	if !row.Tombstone {
		vals := op.vals[:0]
		for _, idx := range op.valIdx {
			vals = append(vals, row.Values[idx])
		}
		op.vals = vals
		b, err := op.valCodec.Encode(op.valueBuf(rec, room), vals)
		if err != nil {
			return encodeFailure(op.env, "value", err)
		}
		op.valSize.note(b)
		rec.Value = b
	}
	if room != nil {
		rec.Loan, op.loan = op.loan, nil // the emitter's from here on
	}
	op.env.Emit.Emit(rec)
	return nil
}

// minLoan is the least a sink borrows (its first record's sizes are not
// known yet).
const minLoan = 256

// room is the buffer the emitter lent for row's key and value (the key
// first, the value after it), or nil when the emitter lends none or the
// record carries headers (whose values the emitter copies anyway). The
// sink keeps a loan it did not emit for its next row; it is sized from
// the last record as sizeHint sizes a buffer, with room for a window.
func (op *sinkOp) room(row *types.Row, headers []Header) []byte {
	if op.lender == nil || len(headers) > 0 {
		return nil
	}
	n := op.keySize.last + 8
	if op.windowed(row) {
		n += 16 // format.AppendWindow's start and end
	}
	if !row.Tombstone {
		n += op.valSize.last + op.valSize.last/4
	}
	n = max(n, minLoan)
	if op.loan == nil || cap(op.loan.LentBuf()) < n {
		if op.loan = op.lender.Lend(n); op.loan == nil {
			op.lender = nil // it has nothing to lend
			return nil
		}
	}
	return op.loan.LentBuf()
}

// key is the record key of row, encoded into room when the emitter lent
// one; ok false (and err, a registry that did not answer, for the task to
// retry) when it cannot be encoded.
func (op *sinkOp) key(row *types.Row, room []byte) ([]byte, bool, error) {
	if op.nkeys == 0 {
		return nil, true, nil
	}
	if row.NullKey || (op.nkeys == 1 && row.Values[0] == nil) {
		if room != nil && op.windowed(row) {
			return op.window(room, row), true, nil
		}
		return op.window(nil, row), true, nil // a null key stays null
	}
	var b []byte // nil where it was before the loans: an empty key stays what it was
	switch {
	case op.windowed(row):
		b = op.keyBuf(room, 32) // room for the window after the key
	case !row.Tombstone && op.keySize.last > 0 && op.valSize.last > 0:
		b = op.keyBuf(room, op.keySize.last+op.valSize.last+op.valSize.last/4+8) // the value goes after it
	}
	b, err := op.keyCodec.Encode(b, row.Values[:op.nkeys])
	if err != nil {
		return nil, false, encodeFailure(op.env, "key", err)
	}
	op.keySize.note(b)
	return op.window(b, row), true, nil
}

// keyBuf is room, the emitter's, or else a buffer of the sink's own of
// capacity n.
func (op *sinkOp) keyBuf(room []byte, n int) []byte {
	if room != nil {
		return room
	}
	return op.bufs.forKey(n)
}

// valueBuf is the buffer the value of rec is encoded into: the room left
// after its key when the key was given room for it (one allocation for
// both, or the emitter's loan; the key's capacity is cut to its length),
// the loan when the record has no key, else one sized from the last
// value (encodeBufs: the sink's own when the emitter copies). A buffer
// is nil exactly where it was before the loans (the first record's, a
// tombstone's key): the record's first bytes are then the emitter's to
// copy, and an empty key or value stays what it was.
func (op *sinkOp) valueBuf(rec *OutRecord, room []byte) []byte {
	k := rec.Key
	if cap(k)-len(k) >= max(op.valSize.last, 1) {
		rec.Key = k[:len(k):len(k)]
		return k[len(k):len(k)]
	}
	if room != nil && k == nil && op.valSize.last > 0 {
		return room // non-nil where forValue's is: an empty value is not a tombstone
	}
	return op.bufs.forValue(op.valSize)
}

func (op *sinkOp) windowed(row *types.Row) bool {
	return row.Window != nil && op.target.Window != nil
}

// innerKey is a windowed key's inner key (nil when it has none).
func innerKey(key []byte, session bool) []byte {
	inner, _, err := format.DecodeWindowedKey(key, session)
	if err != nil || len(inner) == 0 {
		return nil
	}
	return inner[:len(inner):len(inner)]
}

// window appends the window to a key the sink owns.
func (op *sinkOp) window(b []byte, row *types.Row) []byte {
	if !op.windowed(row) {
		return b
	}
	return format.AppendWindow(b, *row.Window, op.target.Window.Kind == ast.Session)
}

// timestamp is the output record's timestamp: the row's ROWTIME, or the
// sink's TIMESTAMP column when it declares one (WITH (TIMESTAMP=…)). A
// row whose TIMESTAMP column is null, negative or unparsable is logged
// and not written.
func (op *sinkOp) timestamp(row *types.Row) (int64, bool) {
	if op.tsIdx < 0 || row.Tombstone {
		return row.Time, true
	}
	var ts int64
	var err error
	switch v := row.Values[op.tsIdx].(type) {
	case int64:
		ts = v
	case types.Timestamp:
		ts = int64(v)
	case string:
		if op.parseTS == nil {
			err = fmt.Errorf("no timestamp parser")
		} else {
			ts, err = op.parseTS(v, op.target.TimestampFormat)
		}
	default:
		err = fmt.Errorf("timestamp column %s is %v", op.target.TimestampColumn, v)
	}
	if err == nil && ts < 0 {
		err = fmt.Errorf("negative timestamp %d in column %s", ts, op.target.TimestampColumn)
	}
	if err != nil {
		op.env.log(SerializationError, "value", "Could not extract the output timestamp: "+err.Error(), nil)
		return 0, false
	}
	return ts, true
}
