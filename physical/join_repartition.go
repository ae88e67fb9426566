package physical

import (
	"fmt"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// joinRepartitionName is the repartition topic of a stream side re-keyed
// for a stream–table join (ksqlDB's `Join-repartition`); stream–stream
// joins use `Join-left-repartition` / `Join-right-repartition`.
const joinRepartitionName = "Join-repartition"

// rekeySide adds the sub-topology that re-keys a stream side by its join
// expression and writes it to the repartition topic, keyed in the other
// side's key format (when that side keeps its key) so each row lands in
// the partition of its key there. It returns the topic, which the join's
// sub-topology reads.
func (b *builder) rekeySide(n *planner.Join, side planner.JoinSide) string {
	in := joinInput(n, side)
	name := repartitionNameOf(n, side)
	topic := b.internalName(name)
	b.topo.Internal = append(b.topo.Internal, InternalTopic{Name: topic})
	if inner, ok := in.Node.(*planner.Join); ok {
		b.startJoin(inner) // an n-way join's nested step, re-keyed for the next
	} else {
		b.startSource(&planner.Scan{Source: in.Source, Alias: in.Alias})
	}
	prefix := n.Prefix + "Left"
	if side == planner.JoinRight {
		prefix = n.Prefix + "Right"
	}
	b.addStep(step{desc: NodeDesc{Name: prefix + "SourceKeyed-SelectKey"}, make: func(env *TaskEnv, next Processor) (Processor, error) {
		return &rekeyOp{env: env, in: in, next: next}, nil
	}})
	b.addStep(step{desc: NodeDesc{Kind: "Sink", Name: name + "-sink", Topic: topic},
		make: func(env *TaskEnv, _ Processor) (Processor, error) {
			return newJoinRepartitionSink(env, n, side, b.internal(), topic)
		}})
	b.finish()
	return topic
}

func joinInput(n *planner.Join, side planner.JoinSide) *planner.JoinInput {
	if side == planner.JoinLeft {
		return &n.Left
	}
	return &n.Right
}

// repartitionNameOf names a side's repartition topic: the SQL left side of
// a RIGHT stream–stream join is Kafka Streams' "other" side.
func repartitionNameOf(n *planner.Join, side planner.JoinSide) string {
	if n.Shape != planner.StreamStream {
		return n.Prefix + joinRepartitionName
	}
	if (side == planner.JoinLeft) != (n.Type == ast.RightJoin) {
		return n.Prefix + "Join-left-repartition"
	}
	return n.Prefix + "Join-right-repartition"
}

// rekeyOp prepends the join key to a stream row: [key…, row values…]
// (one value per key column; a null in any makes a null record key).
type rekeyOp struct {
	env  *TaskEnv
	in   *planner.JoinInput
	next Processor
}

func (op *rekeyOp) Process(row *types.Row) error {
	if row.Tombstone {
		return nil // a null value never joins
	}
	out := *row
	out.Values = make([]any, 0, len(op.in.Rekey)+len(row.Values))
	out.NullKey = false
	for i, c := range op.in.Rekey {
		k, err := c.Eval(row)
		if err != nil {
			op.env.log(ExpressionError, "value", fmt.Sprintf("Error computing join key %s: %v", ast.FormatExpr(op.in.RekeyExprs[i]), err), nil)
			k = nil
		}
		out.Values = append(out.Values, k)
		out.NullKey = out.NullKey || k == nil
	}
	out.Values = append(out.Values, row.Values...)
	return op.next.Process(&out)
}

// joinRepartitionCodecs are the serdes of repartition topic topic: the
// key in the key format of the side that keeps its key (the table of a
// stream–table join), the value every column of the re-keyed side in its
// value format (legacy queries: JSON).
func joinRepartitionCodecs(n *planner.Join, side planner.JoinSide, f internalFormats, topic string) (*repartitionKey, format.Codec, error) {
	key, err := newRepartitionKey(n, f, topic)
	if err != nil {
		return nil, nil, err
	}
	src := joinInput(n, side).Source
	cols := make([]types.Column, len(src.Schema.Columns))
	for i, c := range src.Schema.Columns {
		cols[i] = types.Column{Name: c.Name, Type: c.Type, NS: types.ValueNS}
	}
	if windowedRekey(n, side) {
		cols = append(cols, windowBoundColumns...) // the row's own window (join_window_rekey.go)
	}
	value, err := format.NewValueCodec(f.valueSpec(src.ValueFormat, topic, cols), cols)
	return key, value, err
}

// joinRepartitionSink writes re-keyed rows; a null join key is written
// as a null record key.
type joinRepartitionSink struct {
	env   *TaskEnv
	topic string
	key   *repartitionKey
	value format.Codec
	// windowed: the join of windowed streams whose sides keep their
	// windows (join_window_rekey.go), n its join.
	windowed bool
	n        *planner.Join
	keyVals  []any // the join key in its written order (repartitionKey.encode)
	// rec is the record written, reused, and bufs the buffers its key,
	// value and origin are written into: the sink's own, reused, when the
	// emitter copies them (BytesCopier), else new ones per record.
	rec              OutRecord
	bufs             encodeBufs
	keySize, valSize sizeHint // keySize: of the key and origin together
	headers          []Header // the record's, kept (grown) when the emitter copies them
}

func newJoinRepartitionSink(env *TaskEnv, n *planner.Join, side planner.JoinSide, f internalFormats, topic string) (*joinRepartitionSink, error) {
	key, value, err := joinRepartitionCodecs(n, side, f, topic)
	if err != nil {
		return nil, err
	}
	return &joinRepartitionSink{env: env, topic: topic, key: key, value: value, windowed: windowedRekey(n, side), n: n,
		keyVals: make([]any, key.width()), bufs: newEncodeBufs(env.Emit)}, nil
}

// Process writes row's record: the key with the origin after it in one
// buffer and the value in another, both sized from the last record's.
// Before an emitter that copies what it keeps, the buffers and the
// headers are the sink's own, rewritten for each row; before one that
// keeps them, new ones per record.
func (s *joinRepartitionSink) Process(row *types.Row) error {
	var k []byte
	vals := row.Values[s.key.width():]
	if s.windowed {
		var err error
		if vals, err = withBounds(vals, row.Window); err != nil {
			return err
		}
	}
	if !row.NullKey {
		var err error
		if k, err = s.key.encode(s.bufs.forKey(s.keySize.last+s.keySize.last/4+8), s.keyVals, row.Values[:s.key.width()]); err != nil {
			return encodeFailure(s.env, "key", err)
		}
		if s.windowed {
			if k, err = appendKeyWindow(s.n, k, row.Window); err != nil {
				return err
			}
		}
	}
	v, err := s.value.Encode(s.bufs.forValue(s.valSize), vals)
	if err != nil {
		return encodeFailure(s.env, "value", err)
	}
	s.valSize.note(v)
	rec := &s.rec
	*rec = OutRecord{Topic: s.topic, Partition: -1, Timestamp: row.Time, Value: v}
	if cur := s.env.current; cur != nil {
		room := k[len(k):]
		if k == nil { // a null key: the origin alone in the key's buffer
			room = s.bufs.forKey(s.keySize.last + 8)
		}
		rec.Headers = s.origin(cur, room)
	}
	if k != nil {
		k = k[:len(k):len(k)]
	}
	rec.Key = k
	s.keySize.last = len(k) + originBytes(rec.Headers)
	s.env.Emit.Emit(rec)
	return nil
}

// origin is the record's headers: the input's user headers and the
// origin, its value appended to room (the rest of the key's buffer). The
// headers are the sink's own (s.headers) when the emitter copies them,
// else a new slice.
func (s *joinRepartitionSink) origin(cur *InRecord, room []byte) []Header {
	o := appendOrigin(room, cur)
	hs := s.headers[:0]
	if !s.bufs.reuse {
		hs = make([]Header, 0, len(cur.Headers)+1)
	}
	hs = appendUserHeaders(hs, cur.Headers)
	hs = append(hs, Header{Key: originHeader, Value: o[:len(o):len(o)]})
	if s.bufs.reuse {
		s.headers = hs
	}
	return hs
}

// originBytes is the origin header's value length in hs (0 without one).
func originBytes(hs []Header) int {
	for _, h := range hs {
		if h.Key == originHeader {
			return len(h.Value)
		}
	}
	return 0
}

// joinRepartitionSource reads re-keyed rows back: [key, row values…].
type joinRepartitionSource struct {
	env      *TaskEnv
	n        int
	key      *repartitionKey
	value    format.Codec
	windowed bool // the values end with the row's window (joinRepartitionSink)
	join     *planner.Join
	next     Processor
}

func newJoinRepartitionSource(env *TaskEnv, n *planner.Join, side planner.JoinSide, f internalFormats, topic string, next Processor) (*joinRepartitionSource, error) {
	key, value, err := joinRepartitionCodecs(n, side, f, topic)
	return &joinRepartitionSource{env: env, n: len(joinInput(n, side).Source.Schema.Columns), key: key, value: value,
		windowed: windowedRekey(n, side), join: n, next: next}, err
}

func (s *joinRepartitionSource) ProcessRaw(r *InRecord) error {
	s.env.current = r
	w, width := s.key.width(), s.n
	if s.windowed {
		width += len(windowBoundColumns)
	}
	row := types.Row{Values: make([]any, w+width), Time: r.Timestamp, Partition: r.Partition, Offset: r.Offset}
	if r.Key == nil {
		row.NullKey = true
	} else if err := s.decodeKey(r.Key, row.Values[:w]); err != nil {
		return internalDecodeError(s.env, "key", err, r, r.Key)
	}
	if err := s.value.Decode(r.Value, row.Values[w:]); err != nil {
		return internalDecodeError(s.env, "value", err, r, r.Value)
	}
	if s.windowed {
		vals, win, err := splitBounds(row.Values)
		if err != nil {
			return internalDecodeError(s.env, "value", err, r, r.Value)
		}
		row.Values, row.Window = vals, win
	}
	return s.next.Process(&row)
}

// decodeKey reads a record key into the join key (a windowed key's
// window is dropped: the row's own comes with its value).
func (s *joinRepartitionSource) decodeKey(b []byte, key []any) error {
	if s.windowed {
		inner, err := joinInnerKey(s.join, b)
		if err != nil {
			return err
		}
		b = inner
	}
	return s.key.decode(b, key)
}

var (
	_ Processor    = (*rekeyOp)(nil)
	_ Processor    = (*joinRepartitionSink)(nil)
	_ rawProcessor = (*joinRepartitionSource)(nil)
)
