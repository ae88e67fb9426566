package exec

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// Synchronous implements Cluster: Kafka runs queries in the background.
func (k *Kafka) Synchronous() bool { return false }

// Admin is the admin client of the cluster's shared client.
func (k *Kafka) Admin() *kadm.Client { return k.adm }

// EndOffsets implements Cluster.
func (k *Kafka) EndOffsets(ctx context.Context, topics ...string) (kadm.ListedOffsets, error) {
	return k.adm.ListEndOffsets(ctx, topics...)
}

// CommittedOffsets implements Cluster.
func (k *Kafka) CommittedOffsets(ctx context.Context, group string) (kadm.OffsetResponses, error) {
	return k.adm.FetchOffsets(ctx, group)
}

// CommitEnds implements Cluster: it commits the current end offsets of topics for group, so a
// new query reading "latest" starts exactly where the topics are now.
func (k *Kafka) CommitEnds(ctx context.Context, group string, topics []string) error {
	// Both the listing and the commit may meet a topic created moments
	// ago (a CREATE STREAM and its CREATE … AS SELECT in one request)
	// that some broker does not know yet.
	return RetryUnknownTopic(ctx, func() error {
		ends, err := k.adm.ListEndOffsets(ctx, topics...)
		if err != nil {
			return err
		}
		if err := ends.Error(); err != nil {
			return err
		}
		os := kadm.Offsets{}
		ends.Each(func(o kadm.ListedOffset) {
			os.Add(kadm.Offset{Topic: o.Topic, Partition: o.Partition, At: o.Offset, LeaderEpoch: -1})
		})
		resp, err := k.adm.CommitOffsets(ctx, group, os)
		if err != nil {
			return err
		}
		if err := resp.Error(); err != nil {
			return fmt.Errorf("commit initial offsets: %w", err)
		}
		return nil
	})
}

// RetryUnknownTopic retries fn while a just-created topic is not yet known
// to every broker (up to ten seconds).
func RetryUnknownTopic(ctx context.Context, fn func() error) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := fn()
		if !errors.Is(err, kerr.UnknownTopicOrPartition) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
