package physical

import (
	"fmt"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// joinRepartitionName is the repartition topic of a stream side re-keyed
// for a stream–table join (ksqlDB's `Join-repartition`; stream–stream
// joins will use `Join-left-repartition` / `Join-right-repartition`).
const joinRepartitionName = "Join-repartition"

// rekeyLeft adds the sub-topology that re-keys the stream side by its
// join expression and writes it to the repartition topic, keyed in the
// table's key format so each row lands in the partition of its table
// key. It returns the topic, which the join's sub-topology reads.
func (b *builder) rekeyLeft(n *planner.Join) string {
	src := n.Left.Source
	name := repartitionNameOf(n)
	topic := b.internalName(name)
	b.topo.Internal = append(b.topo.Internal, InternalTopic{Name: topic})
	b.startSource(&planner.Scan{Source: src, Alias: n.Left.Alias})
	b.addStep(step{desc: NodeDesc{Name: "Join-SelectKey"}, make: func(env *TaskEnv, next Processor) (Processor, error) {
		return &rekeyOp{env: env, n: n, next: next}, nil
	}})
	b.addStep(step{desc: NodeDesc{Kind: "Sink", Name: name + "-sink", Topic: topic},
		make: func(env *TaskEnv, _ Processor) (Processor, error) { return newJoinRepartitionSink(env, n, topic) }})
	b.finish()
	return topic
}

// repartitionNameOf names the left side's repartition topic: the SQL left
// side of a RIGHT stream–stream join is Kafka Streams' "other" side.
func repartitionNameOf(n *planner.Join) string {
	switch {
	case n.Shape != planner.StreamStream:
		return joinRepartitionName
	case n.Type == ast.RightJoin:
		return "Join-right-repartition"
	}
	return "Join-left-repartition"
}

// rekeyOp prepends the join key to a stream row: [key, row values…].
type rekeyOp struct {
	env  *TaskEnv
	n    *planner.Join
	next Processor
}

func (op *rekeyOp) Process(row *types.Row) error {
	if row.Tombstone {
		return nil // a null value never joins
	}
	k, err := op.n.Left.Rekey.Eval(row)
	if err != nil {
		op.env.log(ExpressionError, "value", fmt.Sprintf("Error computing join key %v: %v", op.n.Left.RekeyExpr, err), nil)
		k = nil
	}
	out := *row
	out.Values = append([]any{k}, row.Values...)
	out.NullKey = k == nil
	return op.next.Process(&out)
}

// joinRepartitionCodecs: the key in the table's key format, the value
// every column of the stream side as JSON.
func joinRepartitionCodecs(n *planner.Join) (format.Codec, format.Codec, error) {
	key, err := format.NewKeyCodec(n.Right.Source.KeyFormat, n.Right.Source.Schema.Keys())
	if err != nil {
		return nil, nil, err
	}
	cols := make([]types.Column, len(n.Left.Source.Schema.Columns))
	for i, c := range n.Left.Source.Schema.Columns {
		cols[i] = types.Column{Name: c.Name, Type: c.Type, NS: types.ValueNS}
	}
	value, err := format.NewValueCodec(format.Spec{Name: format.JSON}, cols)
	return key, value, err
}

// joinRepartitionSink writes re-keyed rows; a null join key is written
// as a null record key.
type joinRepartitionSink struct {
	env        *TaskEnv
	topic      string
	key, value format.Codec
}

func newJoinRepartitionSink(env *TaskEnv, n *planner.Join, topic string) (*joinRepartitionSink, error) {
	key, value, err := joinRepartitionCodecs(n)
	return &joinRepartitionSink{env: env, topic: topic, key: key, value: value}, err
}

func (s *joinRepartitionSink) Process(row *types.Row) error {
	var k []byte
	if !row.NullKey {
		var err error
		if k, err = s.key.Encode(nil, row.Values[:1]); err != nil {
			s.env.log(SerializationError, "key", err.Error(), nil)
			return nil
		}
	}
	v, err := s.value.Encode(nil, row.Values[1:])
	if err != nil {
		s.env.log(SerializationError, "value", err.Error(), nil)
		return nil
	}
	rec := &OutRecord{Topic: s.topic, Partition: -1, Key: k, Value: v, Timestamp: row.Time}
	if cur := s.env.current; cur != nil {
		rec.Headers = append(userHeaders(cur.Headers), Header{Key: originHeader, Value: originOf(cur)})
	}
	s.env.Emit.Emit(rec)
	return nil
}

// joinRepartitionSource reads re-keyed rows back: [key, row values…].
type joinRepartitionSource struct {
	env        *TaskEnv
	n          int
	key, value format.Codec
	next       Processor
}

func newJoinRepartitionSource(env *TaskEnv, n *planner.Join, next Processor) (*joinRepartitionSource, error) {
	key, value, err := joinRepartitionCodecs(n)
	return &joinRepartitionSource{env: env, n: len(n.Left.Source.Schema.Columns), key: key, value: value, next: next}, err
}

func (s *joinRepartitionSource) ProcessRaw(r *InRecord) error {
	s.env.current = r
	row := types.Row{Values: make([]any, 1+s.n), Time: r.Timestamp, Partition: r.Partition, Offset: r.Offset}
	if r.Key == nil {
		row.NullKey = true
	} else if err := s.key.Decode(r.Key, row.Values[:1]); err != nil {
		s.env.log(DeserializationError, "key", err.Error(), r.Key)
		return nil
	}
	if err := s.value.Decode(r.Value, row.Values[1:]); err != nil {
		s.env.log(DeserializationError, "value", err.Error(), r.Value)
		return nil
	}
	return s.next.Process(&row)
}

var (
	_ Processor    = (*rekeyOp)(nil)
	_ Processor    = (*joinRepartitionSink)(nil)
	_ rawProcessor = (*joinRepartitionSource)(nil)
)
