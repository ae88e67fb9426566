package exec

import "github.com/twmb/franz-go/pkg/kgo"

// changelogRecords recycles a runner's changelog records once
// acknowledged, each with the buffer its key and value were copied into
// (the store reuses its own): an exactly-once commit or an at-least-once
// release writes most cached keys down, a record each, and the copy was
// an allocation per record.
type changelogRecords struct{ recordPool }

// get returns the record of a store write for its changelog partition
// (changelogRecord), its key and value copied into a recycled buffer.
func (c *changelogRecords) get(topic string, p int32, key, value []byte, ts int64) *kgo.Record {
	r := c.recordPool.get(len(key) + len(value))
	return changelogRecordIn(&r.Record, r.buf, topic, p, key, value, ts)
}
