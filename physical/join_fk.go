package physical

import (
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/format"
)

// The internal names of a foreign-key join, as Kafka Streams generates
// them for ksqlDB's two-table FK topology (KTableImpl's
// KTABLE-FK-JOIN-* names and node numbers; ksqlDB passes no TableJoined
// name).
const (
	fkRegistrationName = "KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000012-topic"
	fkSubscriptionName = "KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-0000000016"
	fkResponseName     = "KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000020-topic"
)

// The nodes of a foreign-key join's sub-topologies besides its sources,
// materializations and join (the descriptions and the counters the
// operators take name them alike).
const (
	fkProcessorNode        = "KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR"
	fkResponseSinkNode     = "KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-sink"
	fkRegistrationSinkNode = "KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-sink"
)

// startForeignJoin plans a foreign-key table–table join (KIP-213) as two
// sub-topologies linked by two topics:
//
//	left ──► Left-Reduce ──► subscription (keyed by FK) ──► registration topic
//	registration topic ──► subscription store ──► response (keyed by PK) ──► response topic
//	right ──► Right-Reduce ──► prefix scan of the subscriptions ──┘
//	response topic ──► hash check against Left-Reduce ──► Join
//
// The registration topic is keyed in the right table's key format (it is
// co-partitioned with the right table, and has its partition count); a
// response goes back to the partition its left row came from. The two
// sources need not be co-partitioned.
func (b *builder) startForeignJoin(n *planner.Join) {
	right := n.Right.Source
	if n.Right.Reformat {
		right = reformatted(n, planner.JoinRight, b.internal(), b.reformatTable(n, planner.JoinRight))
	}
	reg, resp := b.internalName(fkRegistrationName), b.internalName(fkResponseName)
	rightTopic := n.Right.Source.Topic
	b.topo.Internal = append(b.topo.Internal, InternalTopic{Name: reg, PartitionsOf: rightTopic}, InternalTopic{Name: resp})

	b.table = true
	rseg := &segment{topics: []string{reg, right.Topic}}
	b.cur = rseg
	rstore, sstore := b.timedStore(joinStoreName(n, planner.JoinRight)), b.store(fkSubscriptionName)
	for i := len(b.topo.Internal) - 2; i < len(b.topo.Internal); i++ {
		b.topo.Internal[i].PartitionsOf = rightTopic
	}
	rseg.joinDescs = fkRightDescs(n, right, reg, resp, rstore.Name, sstore.Name)
	rseg.head = func(env *TaskEnv, _ Processor) (rawProcessor, error) {
		return b.newForeignRight(env, n, right, reg, resp)
	}
	b.finish()

	lseg := &segment{topics: []string{n.Left.Source.Topic, resp}}
	b.cur = lseg
	lstore := b.timedStore(joinStoreName(n, planner.JoinLeft))
	lseg.joinDescs = fkLeftDescs(n, reg, resp, lstore.Name)
	lseg.head = func(env *TaskEnv, next Processor) (rawProcessor, error) {
		return b.newForeignLeft(env, n, right, reg, resp, next)
	}
}

// newForeignRight makes the right sub-topology's head: subscriptions and
// right-table changes (read from rightSrc: the right table's topic, or
// its reformat topic) answered on the response topic.
func (b *builder) newForeignRight(env *TaskEnv, n *planner.Join, rightSrc *planner.Source, reg, resp string) (rawProcessor, error) {
	right, err := openSideStore(env, joinStoreName(n, planner.JoinRight), n.Right.Source.Schema, b.fkStoreKeys(n, planner.JoinRight, rightSrc), b.fkStoreValues(n, planner.JoinRight))
	if err != nil {
		return nil, err
	}
	subs, err := env.store(fkSubscriptionName)
	if err != nil {
		return nil, err
	}
	keys, err := b.fkTopicCodecs(n, rightSrc, reg, resp)
	if err != nil {
		return nil, err
	}
	sent, err := env.nodeCounter(fkResponseSinkNode)
	if err != nil {
		return nil, err
	}
	r := &fkResponder{env: env, right: right, subs: subs, topic: resp, sent: sent, keys: keys}
	fk := keys.rightKeys
	if keys.own {
		fk = keys.registration
	}
	recv, err := env.countedRaw(&fkSubscriptionSource{env: env, fk: fk, r: r}, fkProcessorNode)
	if err != nil {
		return nil, err
	}
	rm, err := env.counted(&fkRightSide{r: r}, rightMaterializeName)
	if err != nil {
		return nil, err
	}
	head := &joinHead{byTopic: map[string]rawProcessor{reg: recv}}
	if err := b.addSourceOp(env, head, rightSrc, rm); err != nil {
		return nil, err
	}
	return head, nil
}

// newForeignLeft makes the left sub-topology's head: left changes send
// subscriptions, keyed by the foreign key as rightSrc's records are keyed
// (so a subscription lands in its right row's partition), responses are
// joined with the current left row.
func (b *builder) newForeignLeft(env *TaskEnv, n *planner.Join, rightSrc *planner.Source, reg, resp string, next Processor) (rawProcessor, error) {
	left, err := openSideStore(env, joinStoreName(n, planner.JoinLeft), n.Left.Source.Schema, b.fkStoreKeys(n, planner.JoinLeft, n.Left.Source), b.fkStoreValues(n, planner.JoinLeft))
	if err != nil {
		return nil, err
	}
	keys, err := b.fkTopicCodecs(n, rightSrc, reg, resp)
	if err != nil {
		return nil, err
	}
	right, err := newSideStore(nil, n.Right.Source.Schema, b.fkStoreKeys(n, planner.JoinRight, rightSrc), b.fkStoreValues(n, planner.JoinRight))
	if err != nil {
		return nil, err
	}
	sent, err := env.nodeCounter(fkRegistrationSinkNode)
	if err != nil {
		return nil, err
	}
	// the join receives the responses and the left rows the left side
	// joins alone (a null foreign key)
	j := joiner{n: n}
	join, err := env.countedRaw(&fkResponseJoin{joiner: j, env: env, left: left, right: right, keys: keys, next: next}, joinNodeName)
	if err != nil {
		return nil, err
	}
	alone, err := env.counted(next, joinNodeName)
	if err != nil {
		return nil, err
	}
	lp, err := env.counted(&fkLeftSide{joiner: j, env: env, left: left, fk: keys.rightKeys, keys: keys, topic: reg, sent: sent, next: alone}, leftMaterializeName)
	if err != nil {
		return nil, err
	}
	head := &joinHead{byTopic: map[string]rawProcessor{resp: join}}
	if err := b.addSourceOp(env, head, n.Left.Source, lp); err != nil {
		return nil, err
	}
	return head, nil
}

// fkStoreValues is the value format of a foreign-key join's side store
// (and, for the right side, of the entries its responses carry): the
// side table's, under the store's changelog's subject.
func (b *builder) fkStoreValues(n *planner.Join, side planner.JoinSide) format.Spec {
	in := joinInput(n, side)
	changelog := b.internalName(joinStoreName(n, side) + "-changelog")
	return b.internal().storeValueSpec(in.Source.ValueFormat, changelog, valueColumns(in.Source.Schema))
}

// fkStoreKeys is the key format of a foreign-key join's side store: the
// format the side's rows arrive keyed in (src: the side's table, or the
// right table's reformat topic) under the store's changelog's subject.
// The subscription store's keys (len(fk) ‖ fk ‖ left key) carry these
// stores' key bytes; the registration and response topics' keys are
// written under those topics' own subjects (fkTopicKeys). JSON for
// queries recorded before (Options.LegacyStoreKeysJSON), whose
// registration and response records carry the store key bytes.
func (b *builder) fkStoreKeys(n *planner.Join, side planner.JoinSide, src *planner.Source) format.Spec {
	changelog := b.internalName(joinStoreName(n, side) + "-changelog")
	return b.internal().storeKeySpec(src.KeyFormat, changelog, joinInput(n, side).Source.Schema.Keys())
}

// fkTopicKeys are the codecs of the keys of a foreign-key join's
// registration and response topics. A subscription's foreign key is
// partitioned as the right table's records are keyed (rightKeys: its
// bytes are what the registration record's partitioner hashes, so it
// lands in its right row's partition); a response goes to the
// partition its left row came from. With own set (queries recorded
// with storeFormats "query/2") each topic's keys are written under the
// topic's own key subject, as ksqlDB's KsqlTopic of each internal
// topic: the foreign key in the right table's key format under
// `<registration topic>-key`, the left key in the left table's under
// `<response topic>-key`, which a standard deserializer reads by id;
// leftKeys (the left store's) turns a response's key back into the
// left store's. Without own (Options.LegacyStoreKeysJSON) the records
// carry the right table's key bytes and the left store's.
//
// Against Kafka Streams: its registration record's key is the foreign
// key as the right table's key serde writes it for the registration
// topic, and its default partitioner hashes those bytes; ours are
// placed by the right table's key bytes (OutRecord.PartitionKey), which
// are the bytes the right rows were partitioned by even when the
// registration key carries another subject's schema id. Its response
// goes to the partition the subscription named (KIP-775's
// primaryPartition), as ours does. So the keys of both topics read
// with a standard deserializer, as ksqlDB's do; the values do not (see
// the wire formats in join_fk_ops.go).
type fkTopicKeys struct {
	own                    bool
	rightKeys              format.Codec // the FK as the right table's records are keyed
	registration, response format.Codec
	leftKeys               format.Codec
	leftColumns            int // the left key's
}

func (b *builder) fkTopicCodecs(n *planner.Join, rightSrc *planner.Source, reg, resp string) (fkTopicKeys, error) {
	f := b.internal()
	rk, lk := n.Right.Source.Schema.Keys(), n.Left.Source.Schema.Keys()
	k := fkTopicKeys{own: !f.legacyStoreKeys, leftColumns: len(lk)}
	var err error
	if k.rightKeys, err = format.NewKeyCodec(rightSrc.KeyFormat, rk); err != nil || !k.own {
		return k, err
	}
	if k.registration, err = format.NewKeyCodec(f.keySpec(rightSrc.KeyFormat, reg, rk), rk); err != nil {
		return k, err
	}
	if k.response, err = format.NewKeyCodec(f.keySpec(n.Left.Source.KeyFormat, resp, lk), lk); err != nil {
		return k, err
	}
	k.leftKeys, err = format.NewKeyCodec(b.fkStoreKeys(n, planner.JoinLeft, n.Left.Source), lk)
	return k, err
}

// fkRightDescs describes the right sub-topology of a foreign-key join.
func fkRightDescs(n *planner.Join, right *planner.Source, reg, resp, rstore, sstore string) []*NodeDesc {
	regSrc := &NodeDesc{Kind: "Source", Name: "KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-source", Topic: reg}
	rs := &NodeDesc{Kind: "Source", Name: "Source-" + n.Right.Source.Name, Topic: right.Topic}
	recv := &NodeDesc{Kind: "Processor", Name: fkProcessorNode, Stores: []string{sstore, rstore}, Prev: []string{regSrc.Name}}
	rm := &NodeDesc{Kind: "Processor", Name: rightMaterializeName, Stores: []string{rstore, sstore}, Prev: []string{rs.Name}}
	sink := &NodeDesc{Kind: "Sink", Name: fkResponseSinkNode, Topic: resp, Prev: []string{recv.Name, rm.Name}}
	regSrc.Next, rs.Next = []string{recv.Name}, []string{rm.Name}
	recv.Next, rm.Next = []string{sink.Name}, []string{sink.Name}
	return []*NodeDesc{regSrc, rs, recv, rm, sink}
}

// fkLeftDescs describes the left sub-topology; the last node ("Join") is
// where the steps above the join attach.
func fkLeftDescs(n *planner.Join, reg, resp, lstore string) []*NodeDesc {
	ls := &NodeDesc{Kind: "Source", Name: "Source-" + n.Left.Source.Name, Topic: n.Left.Source.Topic}
	lm := &NodeDesc{Kind: "Processor", Name: leftMaterializeName, Stores: []string{lstore}, Prev: []string{ls.Name}}
	sink := &NodeDesc{Kind: "Sink", Name: fkRegistrationSinkNode, Topic: reg, Prev: []string{lm.Name}}
	respSrc := &NodeDesc{Kind: "Source", Name: "KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-source", Topic: resp}
	join := &NodeDesc{Kind: "Processor", Name: joinNodeName, Stores: []string{lstore}, Prev: []string{respSrc.Name, lm.Name}}
	ls.Next, lm.Next, respSrc.Next = []string{lm.Name}, []string{sink.Name, join.Name}, []string{join.Name}
	return []*NodeDesc{ls, lm, sink, respSrc, join}
}
