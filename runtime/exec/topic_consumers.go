package exec

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
)

// consumerTally adds up group members' assignments into TopicConsumers.
type consumerTally struct {
	counts map[string]TopicConsumers
	seen   map[[2]string]bool // (group, topic) already counted as a group
}

func newConsumerTally() *consumerTally {
	return &consumerTally{counts: map[string]TopicConsumers{}, seen: map[[2]string]bool{}}
}

// add counts partitions of topic assigned to one member of group.
func (t *consumerTally) add(group, topic string, partitions int) {
	if partitions == 0 {
		return
	}
	c := t.counts[topic]
	c.Consumers += partitions
	if k := [2]string{group, topic}; !t.seen[k] {
		t.seen[k] = true
		c.Groups++
	}
	t.counts[topic] = c
}

// TopicConsumers describes the cluster's classic consumer groups (the
// engine's queries run in them) and counts their members' assignments.
// A group that vanished between the listing and the description counts
// nothing, as in ksqlDB; any other failure fails the statement.
func (k *Kafka) TopicConsumers(ctx context.Context) (map[string]TopicConsumers, error) {
	described, err := k.adm.DescribeGroups(ctx)
	if err != nil {
		return nil, fmt.Errorf("SHOW TOPICS EXTENDED: Kafka could not list or describe its consumer groups "+
			"(check that the brokers are up and that this server may DESCRIBE groups, then retry): %w", err)
	}
	tally := newConsumerTally()
	for _, g := range described.Sorted() {
		if errors.Is(g.Err, kerr.GroupIDNotFound) {
			continue
		}
		if g.Err != nil {
			return nil, fmt.Errorf("SHOW TOPICS EXTENDED: Kafka could not describe consumer group %s (retry): %w", g.Group, g.Err)
		}
		for _, m := range g.Members {
			if a, ok := m.Assigned.AsConsumer(); ok {
				for _, t := range a.Topics {
					tally.add(g.Group, t.Topic, len(t.Partitions))
				}
			}
		}
	}
	return tally.counts, nil
}

// TopicConsumers counts the running persistent queries as Kafka would:
// each query is one group whose single member (this process) holds every
// partition of each topic it reads.
func (m *Mem) TopicConsumers(context.Context) (map[string]TopicConsumers, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	tally := newConsumerTally()
	counted := map[[2]string]bool{}
	for _, s := range m.subs {
		for _, topic := range s.topics {
			t, ok := m.topics[topic]
			k := [2]string{s.group, topic}
			if s.group == "" || s.closed || !ok || counted[k] {
				continue
			}
			counted[k] = true
			tally.add(s.group, topic, len(t.parts))
		}
	}
	return tally.counts, nil
}
