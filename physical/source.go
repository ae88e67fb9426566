package physical

import (
	"errors"
	"fmt"
	"slices"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// sourceOp deserializes raw records of one source into rows: key columns
// first, then value columns, header columns from headers, ROWTIME from the
// record timestamp or the TIMESTAMP column.
type sourceOp struct {
	env      *TaskEnv
	src      *planner.Source
	keyCodec format.Codec
	valCodec format.Codec
	nkeys    int
	valIdx   []int // schema index of each value-codec column
	hdrIdx   []int // schema index of each header column
	// partIdx and offIdx are the schema indexes of the record-metadata
	// columns (types.RecordNS) a join side carries, -1 if absent.
	partIdx, offIdx int
	tsIdx           int // schema index of the TIMESTAMP column, or -1
	tsParse         func(v any) (int64, error)
	next            Processor
	row             types.Row
	vals            rowValues // the rows' Values: one slice, refilled, when next borrows
	keyBuf          []any
	valBuf          []any
	// valAt is where the value columns start in the row when they are
	// one run of it (valIdx is valAt, valAt+1, …): the codec decodes
	// straight into the row, not into valBuf and then a copy of each
	// value; -1 when they are not.
	valAt int
	// unavailable is set when a record could not be decoded because the
	// schema registry did not answer: ProcessRaw fails (the runner
	// retries from the committed offsets) instead of skipping it.
	unavailable error
}

func newSourceOp(env *TaskEnv, src *planner.Source, next Processor, tsParse func(any) (int64, error)) (*sourceOp, error) {
	return newPrunedSourceOp(env, src, next, tsParse, nil)
}

// newPrunedSourceOp is newSourceOp for a query that reads none of the
// value columns unread (planner.UnreadColumns): the value codec checks
// them but does not decode them, so they stay NULL in the row.
func newPrunedSourceOp(env *TaskEnv, src *planner.Source, next Processor, tsParse func(any) (int64, error), unread []string) (*sourceOp, error) {
	keys := src.Schema.Keys()
	var vals []types.Column
	var read []bool
	op := &sourceOp{env: env, src: src, next: next, nkeys: len(keys), tsIdx: -1, tsParse: tsParse, partIdx: -1, offIdx: -1,
		vals: newRowValues(next)}
	for i, c := range src.Schema.Columns {
		switch c.NS {
		case types.ValueNS:
			vals = append(vals, c)
			read = append(read, !slices.Contains(unread, c.Name))
			op.valIdx = append(op.valIdx, i)
		case types.HeaderNS:
			op.hdrIdx = append(op.hdrIdx, i)
		case types.RecordNS:
			op.setRecordColumn(c.Name, i)
		}
	}
	var err error
	if op.keyCodec, err = format.NewTaskKeyCodec(src.KeyFormat, keys); err != nil { // the task's own: it decodes on the task's goroutine
		return nil, err
	}
	if op.valCodec, err = format.NewTaskValueDecoder(src.ValueFormat, vals, read); err != nil { // the task's own too
		return nil, err
	}
	if src.TimestampColumn != "" {
		op.tsIdx = src.Schema.Find(src.TimestampColumn)
	}
	op.keyBuf, op.valBuf = make([]any, len(keys)), make([]any, len(vals))
	op.valAt = run(op.valIdx)
	return op, nil
}

// ProcessRaw deserializes r and forwards the row. A record that does not
// deserialize is logged and skipped.
func (op *sourceOp) ProcessRaw(r *InRecord) error {
	op.env.current = r
	row := &op.row
	*row = types.Row{Values: op.vals.get(len(op.src.Schema.Columns), 0), Time: r.Timestamp, Partition: r.Partition, Offset: r.Offset}
	if !op.decodeKey(r, row) {
		return op.takeUnavailable()
	}
	// A null value is a delete on a table and a "null row" on a stream:
	// projections pass it on as a null value, filters drop it.
	if r.Value == nil {
		row.Tombstone = true
	} else if null, ok := op.decodeValue(r, row); !ok {
		return op.takeUnavailable()
	} else if null {
		row.Tombstone = true
	}
	op.readHeaders(r, row)
	op.readRecordColumns(r, row)
	if err := op.setTime(row); err != nil {
		if op.env.ThrowOnInvalidTimestamp {
			return &UserError{Err: fmt.Errorf("Fatal user code error in TimestampExtractor callback for record at %s[%d]@%d: %w", r.Topic, r.Partition, r.Offset, err),
				Remedy: "fix the record's timestamp, or SET 'ksql.timestamp.throw.on.invalid'='false' to log and skip records with invalid timestamps"}
		}
		op.env.log(ExpressionError, "value", err.Error(), nil)
		return nil
	}
	return op.next.Process(row)
}

func (op *sourceOp) decodeKey(r *InRecord, row *types.Row) bool {
	if op.nkeys == 0 {
		return true
	}
	if op.src.Windowed() {
		inner, w, err := format.DecodeWindowedKey(r.Key, op.src.Window.Kind == ast.Session)
		if err != nil {
			op.env.log(DeserializationError, "key", err.Error(), r.Key)
			return false
		}
		if w.End == 0 && op.src.Window.Kind != ast.Session {
			w.End = w.Start + op.src.Window.Size
		}
		row.Window = &types.Window{Start: w.Start, End: w.End}
		return op.decodeKeyBytes(inner, r, row)
	}
	return op.decodeKeyBytes(r.Key, r, row)
}

func (op *sourceOp) decodeKeyBytes(b []byte, r *InRecord, row *types.Row) bool {
	if b == nil {
		if op.src.Kind == ast.Table {
			return false // tables drop null keys
		}
		row.NullKey = true
		return true
	}
	if err := op.keyCodec.Decode(b, op.keyBuf); err != nil {
		if op.registryUnavailable(err, r) {
			return false
		}
		op.env.log(DeserializationError, "key", fmt.Sprintf("Failed to deserialize key from topic: %s. %v", r.Topic, err), r.Key)
		return false
	}
	copy(row.Values, op.keyBuf)
	return true
}

// decodeValue fills the value columns; null reports a value whose bytes
// spell a null record (JSON null), which counts as a tombstone.
func (op *sourceOp) decodeValue(r *InRecord, row *types.Row) (null, ok bool) {
	direct := op.valAt >= 0
	dst := op.valBuf
	if direct {
		dst = row.Values[op.valAt : op.valAt+len(op.valIdx)]
	}
	err := op.valCodec.Decode(r.Value, dst)
	if err != nil && direct {
		clear(dst) // a null or broken record leaves the value columns NULL, as the copy from valBuf did
	}
	if errors.Is(err, format.ErrNullRecord) {
		return true, true
	}
	if err != nil {
		if op.registryUnavailable(err, r) {
			return false, false
		}
		op.env.log(DeserializationError, "value", fmt.Sprintf("Failed to deserialize value from topic: %s. %v", r.Topic, err), r.Value)
		return false, false
	}
	if !direct {
		for i, idx := range op.valIdx {
			row.Values[idx] = op.valBuf[i]
		}
	}
	return false, true
}

// run is the first of idx when idx is one run of consecutive indexes
// (idx[i] == idx[0]+i), else -1 (and for none).
func run(idx []int) int {
	for i, x := range idx {
		if x != idx[0]+i {
			return -1
		}
	}
	if len(idx) == 0 {
		return -1
	}
	return idx[0]
}

// registryUnavailable notes a decode that failed for want of the schema
// registry (the record is not at fault).
func (op *sourceOp) registryUnavailable(err error, r *InRecord) bool {
	var ru *format.RegistryUnavailableError
	if !errors.As(err, &ru) {
		return false
	}
	op.unavailable = fmt.Errorf("record %s[%d]@%d: %w", r.Topic, r.Partition, r.Offset, ru)
	return true
}

// takeUnavailable returns (and clears) the registry failure of the record
// just read, nil when it was skipped for its own bytes.
func (op *sourceOp) takeUnavailable() error {
	err := op.unavailable
	op.unavailable = nil
	return err
}

func (op *sourceOp) readHeaders(r *InRecord, row *types.Row) {
	for _, idx := range op.hdrIdx {
		c := op.src.Schema.Columns[idx]
		if c.HeaderKey != "" {
			row.Values[idx] = lastHeader(r.Headers, c.HeaderKey)
			continue
		}
		arr := make([]any, len(r.Headers))
		for i, h := range r.Headers {
			arr[i] = &types.StructValue{Type: c.Type.Elem, Values: []any{h.Key, bytesOrNil(h.Value)}}
		}
		row.Values[idx] = arr
	}
}

// readRecordColumns sets the columns a join side carries from the
// record's metadata (planner's record columns): its partition and offset.
// A tombstone keeps only its key.
func (op *sourceOp) readRecordColumns(r *InRecord, row *types.Row) {
	if row.Tombstone {
		return
	}
	if op.partIdx >= 0 {
		row.Values[op.partIdx] = r.Partition
	}
	if op.offIdx >= 0 {
		row.Values[op.offIdx] = r.Offset
	}
}

// setRecordColumn notes where the record-metadata column name is.
func (op *sourceOp) setRecordColumn(name string, idx int) {
	switch name {
	case planner.RowPartitionColumn:
		op.partIdx = idx
	case planner.RowOffsetColumn:
		op.offIdx = idx
	}
}

func lastHeader(hs []Header, key string) any {
	for i := len(hs) - 1; i >= 0; i-- {
		if hs[i].Key == key {
			return bytesOrNil(hs[i].Value)
		}
	}
	return nil
}

// setTime applies the TIMESTAMP column. A null, negative or unparsable
// timestamp is an error: the record is logged and dropped, as ksqlDB
// does, or fails the task with ksql.timestamp.throw.on.invalid.
func (op *sourceOp) setTime(row *types.Row) error {
	if op.tsIdx < 0 || row.Tombstone {
		return nil
	}
	v := row.Values[op.tsIdx]
	switch t := v.(type) {
	case int64:
		row.Time = t
	case types.Timestamp:
		row.Time = int64(t)
	case nil:
		return fmt.Errorf("timestamp column %s is null", op.src.TimestampColumn)
	default:
		ts, err := op.tsParse(v)
		if err != nil {
			return err
		}
		row.Time = ts
	}
	if row.Time < 0 {
		return fmt.Errorf("negative timestamp %d", row.Time)
	}
	return nil
}

// bytesOrNil keeps a null header value a SQL NULL (a nil []byte in an
// interface would not be nil).
func bytesOrNil(b []byte) any {
	if b == nil {
		return nil
	}
	return b
}
