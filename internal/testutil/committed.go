// Package testutil holds what the engine's tests (runtime's and the
// end-to-end tests in tests/) share: waits on facts a test can observe
// through Kafka, in place of sleeps. It is internal, for this module's
// tests only.
package testutil

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// pollEvery is how often WaitCommitted asks the broker again.
const pollEvery = 20 * time.Millisecond

// WaitCommitted waits until the group of the persistent query with
// application id group has committed, on every partition of topics and
// of the internal topics the query reads (its repartition and
// subscription topics, named <group>-…, changelogs aside), at least the
// end offset the partition had when the wait began: every record
// produced to them before the call has been processed and its offset
// committed, so a restart does not read it again. Records written in
// transactions count too: the queries' clients keep the transaction
// markers, so their committed offsets step over a marker at the end.
// The error, once ctx ends, names the partitions still behind.
func WaitCommitted(ctx context.Context, adm *kadm.Client, group string, topics ...string) error {
	internal, err := readInternal(ctx, adm, group)
	if err != nil {
		return err
	}
	topics = append(append([]string(nil), topics...), internal...)
	ends, err := adm.ListEndOffsets(ctx, topics...)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return fmt.Errorf("end offsets of %v: %w", topics, err)
	}
	for {
		behind, err := behindEnds(ctx, adm, group, ends)
		if err == nil && len(behind) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			if err == nil {
				err = fmt.Errorf("behind the end offsets %v", behind)
			}
			return fmt.Errorf("group %s did not commit its offsets of %v: %w (%v)", group, topics, err, ctx.Err())
		case <-time.After(pollEvery):
		}
	}
}

// behindEnds lists the partitions whose committed offset is short of
// ends ("topic[partition] committed/end").
func behindEnds(ctx context.Context, adm *kadm.Client, group string, ends kadm.ListedOffsets) ([]string, error) {
	committed, err := adm.FetchOffsets(ctx, group)
	if err == nil {
		err = committed.Error()
	}
	if err != nil {
		return nil, err
	}
	var behind []string
	ends.Each(func(end kadm.ListedOffset) {
		at := int64(0)
		if o, ok := committed.Lookup(end.Topic, end.Partition); ok {
			at = o.At
		}
		if at < end.Offset {
			behind = append(behind, fmt.Sprintf("%s[%d] %d/%d", end.Topic, end.Partition, at, end.Offset))
		}
	})
	return behind, nil
}

// readInternal lists the internal topics the query of application id
// group reads: <group>-… except its changelogs, which only restores read.
func readInternal(ctx context.Context, adm *kadm.Client, group string) ([]string, error) {
	all, err := adm.ListTopics(ctx)
	if err != nil {
		return nil, fmt.Errorf("list topics: %w", err)
	}
	var out []string
	for _, name := range all.Names() {
		if strings.HasPrefix(name, group+"-") && !strings.HasSuffix(name, "-changelog") {
			out = append(out, name)
		}
	}
	return out, nil
}
