package broker

import (
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// undeletable says why topic may not be deleted by any client, or "": a
// command topic (`_<service id>_command_topic`, the catalog of every
// server of that id, which no server ever deletes) and the schema
// registry's `_schemas`. Deleting either loses every statement or schema
// at the next start. Changelogs and repartition topics are deleted by the
// engine itself (DROP … DELETE TOPIC, TERMINATE), so only
// WithProtected's ACLs keep other clients from them.
func undeletable(topic string) string {
	switch {
	case topic == "_schemas":
		return "the schema registry's topic"
	case strings.HasPrefix(topic, "_") && strings.HasSuffix(topic, "_command_topic"):
		return "a command topic (the catalog of a sqlstream service id)"
	}
	return ""
}

// guardInternalTopics makes the broker refuse a DeleteTopics naming (or
// giving the id of) an undeletable topic, from any client: the topic gets
// POLICY_VIOLATION saying why, the others of the request INVALID_REQUEST,
// and nothing is deleted. A DeleteRecords of such a topic (which empties
// it as well) is refused the same way.
func guardInternalTopics(c *kfake.Cluster) {
	guardDeleteRecords(c)
	c.ControlKey(int16(kmsg.DeleteTopics), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		dreq := req.(*kmsg.DeleteTopicsRequest)
		topics := deleteTopicsNames(c, dreq)
		refused := false
		for _, t := range topics {
			refused = refused || undeletable(t) != ""
		}
		if !refused {
			return nil, nil, false
		}
		return rejectDeleteTopics(dreq, topics), nil, true
	})
}

// deleteTopicsNames is the topic name of each entry of req (v0-5 names,
// v6 names or ids; "" for an unknown id).
func deleteTopicsNames(c *kfake.Cluster, req *kmsg.DeleteTopicsRequest) []string {
	if req.Version <= 5 {
		return req.TopicNames
	}
	names := make([]string, len(req.Topics))
	for i, t := range req.Topics {
		switch {
		case t.Topic != nil:
			names[i] = *t.Topic
		default:
			if ti := c.TopicIDInfo(t.TopicID); ti != nil {
				names[i] = ti.Topic
			}
		}
	}
	return names
}

func rejectDeleteTopics(req *kmsg.DeleteTopicsRequest, names []string) *kmsg.DeleteTopicsResponse {
	resp := req.ResponseKind().(*kmsg.DeleteTopicsResponse)
	for i, name := range names {
		rt := kmsg.NewDeleteTopicsResponseTopic()
		rt.Topic = kmsg.StringPtr(name)
		if req.Version > 5 {
			rt.TopicID = req.Topics[i].TopicID
		}
		msg := "not deleted: another topic of this request may not be deleted"
		rt.ErrorCode = kerr.InvalidRequest.Code
		if why := undeletable(name); why != "" {
			msg, rt.ErrorCode = name+" is "+why+" and may not be deleted: stop its servers and remove their data to start over", kerr.PolicyViolation.Code
		}
		rt.ErrorMessage = &msg
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

// guardDeleteRecords refuses a DeleteRecords touching an undeletable
// topic: its partitions get POLICY_VIOLATION, the others INVALID_REQUEST,
// and no record is deleted.
func guardDeleteRecords(c *kfake.Cluster) {
	c.ControlKey(int16(kmsg.DeleteRecords), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		dreq := req.(*kmsg.DeleteRecordsRequest)
		refused := false
		for _, t := range dreq.Topics {
			refused = refused || undeletable(t.Topic) != ""
		}
		if !refused {
			return nil, nil, false
		}
		resp := dreq.ResponseKind().(*kmsg.DeleteRecordsResponse)
		for _, t := range dreq.Topics {
			rt := kmsg.NewDeleteRecordsResponseTopic()
			rt.Topic = t.Topic
			code := kerr.InvalidRequest.Code
			if undeletable(t.Topic) != "" {
				code = kerr.PolicyViolation.Code
			}
			for _, p := range t.Partitions {
				rp := kmsg.NewDeleteRecordsResponseTopicPartition()
				rp.Partition, rp.LowWatermark, rp.ErrorCode = p.Partition, -1, code
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp, nil, true
	})
}
