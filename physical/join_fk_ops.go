package physical

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// fkInstruction says what the right side does with a subscription
// (Kafka Streams' SubscriptionWrapper.Instruction).
type fkInstruction byte

const (
	// fkDeleteNoPropagate: the left row's FK changed, drop the old
	// subscription silently.
	fkDeleteNoPropagate fkInstruction = iota
	// fkDeleteAndPropagate: the left row is gone, answer with a delete.
	fkDeleteAndPropagate
	// fkPropagateNull: answer with the right row or with null.
	fkPropagateNull
	// fkPropagateOnly: answer only if the right row exists (a new left
	// row of an inner join).
	fkPropagateOnly
)

// Wire formats (internal topics and store, big-endian):
//
//	subscription value: instruction ‖ hash len ‖ hash ‖ partition (4) ‖ left key (the left store's)
//	subscription store: len(fk) (4) ‖ fk (the right store's key) ‖ left key → hash len ‖ hash ‖ partition
//	response value:     hash len ‖ hash ‖ found (1) ‖ right entry (ts ‖ the right store's value)
//
// The keys are ksqlDB's (fkTopicKeys); the values are sqlstream's own,
// and differ from Kafka Streams' (SubscriptionWrapper,
// SubscriptionResponseWrapper and their serdes), so neither engine can
// read the other's registration topic, response topic or subscription
// store changelog, and a sqlstream server cannot take over a ksqlDB
// query's foreign-key join in place (nor the other way round):
//   - Kafka Streams starts each value with a version byte whose top bit
//     says the hash is null; ours has no version (the command's
//     storeFormats says which layout a query writes, Options) and gives
//     the hash a length byte (0: null, as on a delete).
//   - Its hash is Murmur3-128 of the left value as its serde writes it,
//     16 bytes; ours FNV-128a of the left row's non-key columns as JSON
//     (sideStore.hash), whatever the store's format, so a changed schema
//     id does not make every response in flight stale. Only equality
//     matters, on one side of the one query.
//   - Its subscription carries the left key as the left key serde
//     writes it, then the left partition (version 1); ours the partition
//     before the left key, in the left store's key bytes (what the
//     response's key turns back into, fkResponseJoin.leftKey).
//   - The instructions have Kafka Streams' numbers (fkInstruction).
//   - Its response carries the right value as the right value serde
//     writes it (none: no right row); ours a found byte, then the right
//     store's entry as stored (its timestamp, then the value in the
//     right table's format under the right store changelog's subject),
//     so an empty value is not taken for a missing row.
//   - Its subscription store's values are the timestamp and the whole
//     SubscriptionWrapper; ours only what an answer needs (hash,
//     partition). The keys are the same layout (CombinedKey: 4-byte
//     length of the foreign key, the foreign key, the left key), over
//     our stores' key bytes.
func appendHash(b, hash []byte) []byte { return append(append(b, byte(len(hash))), hash...) }

func readHash(b []byte) (hash, rest []byte, err error) {
	if len(b) < 1 || len(b) < 1+int(b[0]) {
		return nil, nil, fmt.Errorf("corrupt foreign-key join record")
	}
	return b[1 : 1+int(b[0])], b[1+int(b[0]):], nil
}

func subscriptionPrefix(fk []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(fk))), fk...)
}

// prefixEnd is the first key after every key starting with p.
func prefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// fkLeftSide is the left table of a foreign-key join: a change updates
// the left store and (re)subscribes the row to its FK's right row; an
// FK change unsubscribes the old one, so its result is replaced by the
// new FK's answer (Kafka Streams' SubscriptionSendProcessorSupplier). A
// null FK joins nothing: a LEFT join emits the row with nulls at once.
type fkLeftSide struct {
	joiner
	env   *TaskEnv
	left  *sideStore
	fk    format.Codec  // the FK in the right table's key format
	keys  fkTopicKeys   // the registration topic's keys
	topic string        // the registration topic
	sent  *atomic.Int64 // the registration sink's counter (nil: not counted)
	next  Processor
}

func (op *fkLeftSide) Process(row *types.Row) error {
	old, pk, err := op.left.update(row)
	if err != nil {
		return err
	}
	var newFK, oldFK []byte
	if !row.Tombstone {
		newFK = op.foreignKey(row.Values)
	}
	if old != nil {
		oldFK = op.foreignKey(old.values)
	}
	if oldFK != nil && (row.Tombstone || !bytes.Equal(oldFK, newFK)) {
		instr := fkDeleteNoPropagate
		if row.Tombstone {
			instr = fkDeleteAndPropagate
		}
		if err := op.subscribe(oldFK, instr, nil, pk, row); err != nil {
			return err
		}
	}
	switch {
	case row.Tombstone && old != nil && oldFK == nil && op.n.Type == ast.LeftJoin:
		return op.emit(row, nil) // retract the null-FK row emitted directly
	case row.Tombstone:
		return nil
	case newFK == nil && op.n.Type == ast.LeftJoin:
		return op.emit(row, row.Values)
	case newFK == nil:
		if oldFK != nil {
			return op.emit(row, nil)
		}
		return nil
	}
	hash, err := op.left.hash(row.Values)
	if err != nil {
		return err
	}
	instr := fkPropagateOnly
	if op.n.Type == ast.LeftJoin || old != nil {
		instr = fkPropagateNull
	}
	return op.subscribe(newFK, instr, hash, pk, row)
}

// foreignKey computes a left row's FK in the right key format (nil: the
// FK is null or cannot be computed).
func (op *fkLeftSide) foreignKey(vals []any) []byte {
	v, err := op.n.Left.ForeignKey.Eval(&types.Row{Values: vals})
	if err != nil {
		op.env.log(ExpressionError, "value", fmt.Sprintf("Error computing join key %s: %v", ast.FormatExpr(op.n.Left.ForeignKeyExpr), err), nil)
		return nil
	}
	if v == nil {
		return nil
	}
	k, err := op.fk.Encode(nil, []any{v})
	if err != nil {
		op.env.log(SerializationError, "key", err.Error(), nil)
		return nil
	}
	return k
}

// subscribe sends a subscription of the left row (key pk in the left
// store's bytes) to its foreign key fk (in the right table's key
// bytes, which place it), keyed in the registration topic's format.
func (op *fkLeftSide) subscribe(fk []byte, instr fkInstruction, hash, pk []byte, row *types.Row) error {
	v := appendHash([]byte{byte(instr)}, hash)
	v = binary.BigEndian.AppendUint32(v, uint32(row.Partition))
	v = append(v, pk...)
	rec := &OutRecord{Topic: op.topic, Partition: -1, Key: fk, Value: v, Timestamp: row.Time}
	if op.keys.own {
		key, err := reencode(op.keys.rightKeys, op.keys.registration, 1, fk)
		if err != nil {
			return encodeFailure(op.env, "key", err)
		}
		rec.Key, rec.PartitionKey = key, fk
	}
	count(op.sent)
	op.env.Emit.Emit(rec)
	return nil
}

// reencode is key b of ncols columns, written by from, written by to.
func reencode(from, to format.Codec, ncols int, b []byte) ([]byte, error) {
	vals := make([]any, ncols)
	if err := from.Decode(b, vals); err != nil {
		return nil, err
	}
	return to.Encode(nil, vals)
}

// emit forwards a result of the left row alone (vals nil: a delete, which
// still carries the whole left key).
func (op *fkLeftSide) emit(row *types.Row, vals []any) error {
	key := []any{row.Values[op.n.Left.KeyIndex()]}
	left := withTime(vals, row.Time, nil)
	if vals == nil {
		left = op.left.keysOnly(op.left.keyValues(row.Values))
	}
	out := &types.Row{Time: row.Time, Partition: row.Partition, Offset: row.Offset, Values: op.join(key, left, nil), Tombstone: vals == nil}
	return op.next.Process(out)
}

// fkResponder answers subscriptions on the response topic, to the
// partition the subscribing left row came from.
type fkResponder struct {
	env   *TaskEnv
	right *sideStore
	subs  Store
	topic string
	sent  *atomic.Int64 // the response sink's counter (nil: not counted)
	keys  fkTopicKeys   // the response topic's keys
}

// respond answers the left row of key pk (the left store's bytes) in the
// response topic's key format.
func (r *fkResponder) respond(pk, hash []byte, partition int32, entry []byte, ts int64) error {
	v := appendHash(nil, hash)
	if entry != nil {
		v = append(append(v, 1), entry...)
	} else {
		v = append(v, 0)
	}
	key := bytes.Clone(pk)
	if r.keys.own {
		var err error
		if key, err = reencode(r.keys.leftKeys, r.keys.response, r.keys.leftColumns, pk); err != nil {
			return encodeFailure(r.env, "key", err)
		}
	}
	count(r.sent)
	r.env.Emit.Emit(&OutRecord{Topic: r.topic, Partition: partition, Key: key, Value: v, Timestamp: ts})
	return nil
}

// fkSubscriptionSource keeps the subscriptions (FK ‖ left key → hash,
// partition) and answers them with the right row of their FK (Kafka
// Streams' SubscriptionReceive and SubscriptionJoin processors).
type fkSubscriptionSource struct {
	env *TaskEnv
	fk  format.Codec
	r   *fkResponder
}

func (s *fkSubscriptionSource) ProcessRaw(rec *InRecord) error {
	s.env.current = rec
	fkv := make([]any, 1)
	if err := s.fk.Decode(rec.Key, fkv); err != nil {
		s.env.log(DeserializationError, "key", err.Error(), rec.Key)
		return nil
	}
	fk, err := s.r.right.key.Encode(nil, fkv)
	if err != nil || len(rec.Value) < 1 {
		return fmt.Errorf("corrupt foreign-key subscription: %v", err)
	}
	instr := fkInstruction(rec.Value[0])
	hash, rest, err := readHash(rec.Value[1:])
	if err != nil || len(rest) < 4 {
		return fmt.Errorf("corrupt foreign-key subscription")
	}
	part, pk := int32(binary.BigEndian.Uint32(rest)), rest[4:]
	key := append(subscriptionPrefix(fk), pk...)
	if instr == fkDeleteNoPropagate || instr == fkDeleteAndPropagate {
		if err := s.r.subs.Put(key, nil); err != nil {
			return err
		}
		if instr == fkDeleteAndPropagate {
			return s.r.respond(pk, nil, part, nil, rec.Timestamp)
		}
		return nil
	}
	if err := s.r.subs.Put(key, binary.BigEndian.AppendUint32(appendHash(nil, hash), uint32(part))); err != nil {
		return err
	}
	entry, err := s.r.right.store.Get(fk)
	if err != nil || (entry == nil && instr == fkPropagateOnly) {
		return err
	}
	return s.r.respond(pk, hash, part, entry, rec.Timestamp)
}

// fkRightSide is the right table of a foreign-key join: a change updates
// its store and answers every subscription to its key (Kafka Streams'
// ForeignTableJoinProcessorSupplier), at the change's time.
type fkRightSide struct {
	r *fkResponder
}

type fkSubscription struct {
	pk, hash  []byte
	partition int32
}

func (op *fkRightSide) Process(row *types.Row) error {
	_, fk, err := op.r.right.update(row)
	if err != nil {
		return err
	}
	var entry []byte
	if !row.Tombstone {
		if entry, err = op.r.right.store.Get(fk); err != nil {
			return err
		}
	}
	prefix := subscriptionPrefix(fk)
	var subs []fkSubscription
	var bad error
	err = op.r.subs.Range(prefix, prefixEnd(prefix), func(k, v []byte) bool {
		hash, rest, err := readHash(v)
		if err != nil || len(rest) < 4 {
			bad = fmt.Errorf("corrupt foreign-key subscription store entry")
			return false
		}
		subs = append(subs, fkSubscription{pk: bytes.Clone(k[len(prefix):]), hash: bytes.Clone(hash), partition: int32(binary.BigEndian.Uint32(rest))})
		return true
	})
	if err := errors.Join(err, bad); err != nil {
		return err
	}
	for _, s := range subs {
		if err := op.r.respond(s.pk, s.hash, s.partition, entry, row.Time); err != nil {
			return err
		}
	}
	return nil
}

// fkResponseJoin joins a response with the current left row. A response
// whose hash is not the current left row's was sent for an older version
// of it and is dropped (Kafka Streams' ResponseJoinProcessorSupplier);
// a missing right row is a delete for an inner join, nulls for LEFT.
type fkResponseJoin struct {
	joiner
	env   *TaskEnv
	left  *sideStore
	right *sideStore  // codecs only: decodes the right entry
	keys  fkTopicKeys // the response topic's keys
	next  Processor
}

func (op *fkResponseJoin) ProcessRaw(rec *InRecord) error {
	op.env.current = rec
	hash, rest, err := readHash(rec.Value)
	if err != nil || len(rest) < 1 {
		return fmt.Errorf("corrupt foreign-key response")
	}
	keyVals := make([]any, len(op.left.keys))
	pk, err := op.leftKey(rec.Key, keyVals)
	if err != nil {
		return err
	}
	cur, err := op.left.get(pk, keyVals)
	if err != nil {
		return err
	}
	var curHash []byte
	if cur != nil {
		if curHash, err = op.left.hash(cur.values); err != nil {
			return err
		}
	}
	if !bytes.Equal(curHash, hash) {
		return nil // stale: the left row changed since it subscribed
	}
	out := &types.Row{Time: rec.Timestamp, Partition: rec.Partition, Offset: rec.Offset}
	key := keyVals[:1]
	switch {
	case cur != nil && rest[0] == 1:
		right, err := op.rightRow(cur, rest[1:])
		if err != nil {
			return err
		}
		out.Values = op.join(key, withTime(cur.values, cur.time, nil), withTime(right.values, right.time, nil))
	case cur != nil && op.n.Type == ast.LeftJoin:
		out.Values = op.join(key, withTime(cur.values, cur.time, nil), nil)
	default:
		out.Tombstone, out.Values = true, op.join(key, op.left.keysOnly(keyVals), nil)
	}
	return op.next.Process(out)
}

// leftKey decodes a response's key into keyVals and returns the left
// store's key of it (the response key itself when it carries those
// bytes, fkTopicKeys.own false).
func (op *fkResponseJoin) leftKey(key []byte, keyVals []any) ([]byte, error) {
	if !op.keys.own {
		return key, op.left.key.Decode(key, keyVals)
	}
	if err := op.keys.response.Decode(key, keyVals); err != nil {
		return nil, err
	}
	return op.left.key.Encode(nil, keyVals)
}

// rightRow decodes the right entry; its key is the left row's FK.
func (op *fkResponseJoin) rightRow(cur *sideRow, entry []byte) (*sideRow, error) {
	fk, err := op.n.Left.ForeignKey.Eval(&types.Row{Values: cur.values})
	if err != nil {
		return nil, err
	}
	return op.right.decode(entry, []any{fk})
}

var (
	_ Processor    = (*fkLeftSide)(nil)
	_ Processor    = (*fkRightSide)(nil)
	_ rawProcessor = (*fkSubscriptionSource)(nil)
	_ rawProcessor = (*fkResponseJoin)(nil)
)
