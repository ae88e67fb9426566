package broker

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DefaultMaxPartitions is the partition count per topic the broker
// accepts unless WithMaxPartitions says otherwise. A topic costs memory
// per partition in the broker and in every query reading it (one push
// query over a million partitions took 5 GB); 1000 is above what one
// machine serves well (Kafka's guidance is a few thousand partitions per
// broker in all) and far above what a laptop-sized engine needs.
const DefaultMaxPartitions = 1000

// WithMaxPartitions sets the largest partition count a topic may have,
// overriding the default of DefaultMaxPartitions: CreateTopics and
// CreatePartitions asking for more fail with INVALID_PARTITIONS naming the
// limit. n must be positive.
func WithMaxPartitions(n int32) Option {
	return optionFunc(func(c *config) { c.maxPartitions = n })
}

// guardPartitions makes the broker refuse CreatePartitions beyond max
// partitions per topic (the CreateTopics guard is guardTopicNames). A
// request with one topic over the limit changes nothing.
func guardPartitions(c *kfake.Cluster, max int32) {
	c.ControlKey(int16(kmsg.CreatePartitions), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		creq := req.(*kmsg.CreatePartitionsRequest)
		bad := map[int]error{}
		for i, t := range creq.Topics {
			if err := checkPartitions(t.Count, max); err != nil {
				bad[i] = err
			}
		}
		if len(bad) == 0 {
			return nil, nil, false
		}
		return rejectCreatePartitions(creq, bad), nil, true
	})
}

// checkPartitions says why n partitions are too many.
func checkPartitions(n, max int32) error {
	if n > max {
		return fmt.Errorf("%d partitions requested, the broker allows at most %d per topic (broker option WithMaxPartitions, property %s)", n, max, MaxPartitionsProperty)
	}
	return nil
}

// MaxPartitionsProperty is the server property the command line maps to
// WithMaxPartitions.
const MaxPartitionsProperty = "sqlstream.topic.partitions.max"

// requestedPartitions is the partition count a CreateTopics entry asks
// for: NumPartitions, or the size of its replica assignment when it
// leaves the count to the broker (-1: the broker's default, which is
// below any limit).
func requestedPartitions(t kmsg.CreateTopicsRequestTopic) int32 {
	if t.NumPartitions < 0 {
		return int32(len(t.ReplicaAssignment))
	}
	return t.NumPartitions
}

func rejectCreatePartitions(req *kmsg.CreatePartitionsRequest, bad map[int]error) *kmsg.CreatePartitionsResponse {
	resp := req.ResponseKind().(*kmsg.CreatePartitionsResponse)
	for i, t := range req.Topics {
		rt := kmsg.NewCreatePartitionsResponseTopic()
		rt.Topic = t.Topic
		msg := "not changed: another topic of this request asks for too many partitions"
		rt.ErrorCode = kerr.InvalidRequest.Code
		if err, ok := bad[i]; ok {
			msg, rt.ErrorCode = err.Error(), kerr.InvalidPartitions.Code
		}
		rt.ErrorMessage = &msg
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}
