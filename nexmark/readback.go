package nexmark

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ReadTopic reads every record of topic from the start to the end
// offsets it has when called.
func ReadTopic(ctx context.Context, brokers []string, topic string) ([]Record, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err != nil {
		return nil, fmt.Errorf("end offsets of %s: %w", topic, err)
	}
	left := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Err == nil && o.Offset > 0 {
			left[o.Partition] = o.Offset
		}
	})
	var out []Record
	for len(left) > 0 {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("reading %s: %w (%d records read)", topic, err, len(out))
		}
		if errs := fs.Errors(); len(errs) > 0 {
			return nil, fmt.Errorf("reading %s: %v", topic, errs[0].Err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			out = append(out, Record{Key: r.Key, Value: r.Value, Offset: r.Offset})
			if end, ok := left[r.Partition]; ok && r.Offset+1 >= end {
				delete(left, r.Partition)
			}
		})
	}
	return out, nil
}

// WaitConsumed waits until the queries of one engine have consumed all
// their input: every consumer group whose name starts with prefix (the
// engine's service id and "query_"), want of them, has committed the end
// offset of every partition assigned to it, in two looks in a row at the
// groups and the end offsets. (One look is not enough when one query
// reads another's sink: the reader may be checked before the writer's
// last commit, which comes after its last output. After a look in which
// the writer had consumed everything, it writes nothing more, so the
// second look sees the reader's true position.) It polls those facts
// every interval.
func WaitConsumed(ctx context.Context, adm *kadm.Client, prefix string, want int, interval time.Duration) error {
	streak := 0
	for {
		done, why, err := consumed(ctx, adm, prefix, want)
		switch {
		case err != nil:
			return err
		case !done:
			streak = 0
		case streak == 1:
			return nil
		default:
			streak = 1
			continue
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the queries to consume their input: %w (last: %s)", ctx.Err(), why)
		case <-time.After(interval):
		}
	}
}

func consumed(ctx context.Context, adm *kadm.Client, prefix string, want int) (bool, string, error) {
	listed, err := adm.ListGroups(ctx)
	if err != nil {
		return false, "", err
	}
	var groups []string
	for _, g := range listed.Groups() {
		if strings.HasPrefix(g, prefix) {
			groups = append(groups, g)
		}
	}
	if len(groups) < want {
		return false, fmt.Sprintf("%d of %d groups", len(groups), want), nil
	}
	described, err := adm.DescribeGroups(ctx, groups...)
	if err != nil {
		return false, "", err
	}
	for _, g := range groups {
		if ok, why, err := groupConsumed(ctx, adm, described[g]); err != nil || !ok {
			return false, g + ": " + why, err
		}
	}
	return true, "", nil
}

func groupConsumed(ctx context.Context, adm *kadm.Client, g kadm.DescribedGroup) (bool, string, error) {
	assigned := g.AssignedPartitions()
	if len(assigned) == 0 {
		return false, "no partitions assigned yet", nil
	}
	committed, err := adm.FetchOffsets(ctx, g.Group)
	if err != nil {
		return false, "", err
	}
	ends, err := adm.ListEndOffsets(ctx, assigned.Topics()...)
	if err != nil {
		return false, "", err
	}
	for t, ps := range assigned {
		for p := range ps {
			end, _ := ends.Lookup(t, p)
			at := int64(0)
			if o, ok := committed.Lookup(t, p); ok {
				at = o.At
			}
			if at < end.Offset {
				return false, fmt.Sprintf("%s[%d] committed %d of %d", t, p, at, end.Offset), nil
			}
		}
	}
	return true, "", nil
}
