package physical

import (
	"sync"

	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// partitionKey is the key format of a repartition topic: the bytes its
// records are keyed (so partitioned) by, which a store fed by the topic
// needs to find a key's partition. The codec is made on first use and
// kept: a registry format registers (looks up) its schema once.
type partitionKey struct {
	spec  format.Spec
	cols  []types.Column
	once  sync.Once
	codec format.Codec
	err   error
}

func (k *partitionKey) get() (format.Codec, error) {
	k.once.Do(func() { k.codec, k.err = format.NewKeyCodec(k.spec, k.cols) })
	return k.codec, k.err
}

// notePartitionKey records the key format of repartition topic topic.
func (t *Topology) notePartitionKey(topic string, spec format.Spec, cols []types.Column) {
	if t.partitionKeys == nil {
		t.partitionKeys = map[string]*partitionKey{}
	}
	t.partitionKeys[topic] = &partitionKey{spec: spec, cols: cols}
}

// PartitionKeyCodec returns the key codec of the repartition topic that
// sub-topology sub reads (the GROUP BY repartition topic feeding an
// aggregate's store): a key encoded with it and hashed with murmur2 names
// the partition that holds the key, whatever the topic's key format (a
// registry format's bytes carry the schema id of the topic's own key
// subject). ok is false when sub reads anything but one such topic.
func (t *Topology) PartitionKeyCodec(sub int) (c format.Codec, ok bool, err error) {
	topics := t.SubTopologies[sub].Topics
	if len(topics) != 1 || t.partitionKeys[topics[0]] == nil {
		return nil, false, nil
	}
	c, err = t.partitionKeys[topics[0]].get()
	return c, err == nil, err
}
