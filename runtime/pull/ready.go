package pull

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
)

// Behind describes the input partitions of the query of application
// appID (reading its sources from the start when fromEarliest) whose
// committed offset is short of its end, or returns "" when none is: a
// source partition read from latest without a commit counts as caught
// up (the query started past its records), an internal topic never; a
// topic eos says an exactly_once_v2 query writes may end one marker past
// the commit.
func Behind(appID string, fromEarliest bool, ends kadm.ListedOffsets, committed kadm.OffsetResponses, eos EOSWritten) string {
	var lag []string
	ends.Each(func(o kadm.ListedOffset) {
		if o.Err != nil || o.Offset <= 0 {
			return
		}
		at := int64(0)
		c, ok := committed.Lookup(o.Topic, o.Partition)
		switch {
		case ok && c.Err == nil && c.At >= 0:
			at = c.At
		case !fromEarliest && !strings.HasPrefix(o.Topic, appID+"-"):
			return // no commit yet on a source read from latest: the records before it started are not its to read
		}
		if slack := eos.markerSlack(o.Topic); at < o.Offset-slack {
			lag = append(lag, fmt.Sprintf("%s[%d] at %d of %d", o.Topic, o.Partition, at, o.Offset))
		}
	})
	if len(lag) == 0 {
		return ""
	}
	return "has not caught up with " + strings.Join(lag, ", ")
}

// EOSWritten is what the engine's exactly_once_v2 queries write: their
// sink topics and the prefixes of their internal topics, taken once per
// wait (under the engine lock once, not for every partition of every
// poll).
type EOSWritten struct {
	Sinks    map[string]bool
	Prefixes []string
}

// markerSlack is 1 for a topic an exactly_once_v2 query of this engine
// writes (its partitions may end with a transaction marker), else 0.
func (w EOSWritten) markerSlack(topic string) int64 {
	if w.Sinks[topic] {
		return 1
	}
	for _, p := range w.Prefixes {
		if strings.HasPrefix(topic, p) {
			return 1
		}
	}
	return 0
}
