package exec

import (
	"context"
	"fmt"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/state"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// restore rebuilds the stores of task (sub, p) from their changelogs
// before the task processes anything: from the local checkpoint when the
// local state is intact (only the tail is replayed), from the beginning
// otherwise (the partial local state is wiped first).
func (q *Query) restore(ctx context.Context, k *Kafka, sub int, p int32) error {
	for _, spec := range q.Topology.SubTopologies[sub].Stores {
		id := state.StoreID{App: q.AppID, Name: spec.Name, Partition: p}
		if err := q.restoreStore(ctx, k, id, spec); err != nil {
			return fmt.Errorf("restoring %s from %s: %w", id, spec.Changelog, err)
		}
	}
	return nil
}

func (q *Query) restoreStore(ctx context.Context, k *Kafka, id state.StoreID, spec physical.StoreSpec) error {
	db, topic := q.DB, spec.Changelog
	from, ok := db.Checkpointed(id)
	if !ok {
		if err := db.Wipe(id); err != nil {
			return err
		}
		from = 0
	}
	end, err := k.EndOffset(ctx, topic, id.Partition)
	if err != nil {
		return err
	}
	r := db.Restorer(id, layoutOptions(spec)...)
	q.Restores.track(id, r)
	if end > from {
		r.SetTotal(end - from)
		start := time.Now()
		if err := k.readRange(ctx, topic, id.Partition, from, end, q.Config.RestoreClients, func(rec *kgo.Record) error {
			return r.Restore(rec.Key, rec.Value, rec.Timestamp.UnixMilli(), rec.Offset)
		}); err != nil {
			r.Done()
			return err
		}
		n, _ := r.Progress()
		q.Logger.Info("restored store", "query", q.ID, "store", id.String(), "records", n,
			"from", from, "to", end, "elapsed", time.Since(start).Round(time.Millisecond))
	}
	return r.Done()
}

// EndOffset returns the end offset of one topic partition.
func (k *Kafka) EndOffset(ctx context.Context, topic string, p int32) (int64, error) {
	var ends kadm.ListedOffsets
	err := RetryUnknownTopic(ctx, func() error {
		var err error
		if ends, err = k.adm.ListEndOffsets(ctx, topic); err != nil {
			return err
		}
		return ends.Error()
	})
	if err != nil {
		return 0, err
	}
	o, ok := ends.Lookup(topic, p)
	if !ok {
		return 0, fmt.Errorf("no partition %d", p)
	}
	return o.Offset, nil
}

// ReadRange reads offsets [from, end) of one partition read_committed:
// records deleted by compaction and records of aborted transactions are
// skipped. Control records (transaction markers) are read too, so the
// position reaches end even when the range ends with a marker. A poll that
// stays empty ends the read only once the last stable offset has reached
// end (the rest was compacted away); until then a transaction is still
// open over the range, and the read waits for it to commit or abort
// rather than stop short of records it may commit.
func (k *Kafka) ReadRange(ctx context.Context, topic string, p int32, from, end int64, fn func(*kgo.Record) error) error {
	return k.readRange(ctx, topic, p, from, end, nil, fn)
}

// readRange is ReadRange with the reader's Kafka client options (a
// query's restore consumer settings) after its own; none of them sets
// isolation: the read stays read_committed.
func (k *Kafka) readRange(ctx context.Context, topic string, p int32, from, end int64, opts []kgo.Opt, fn func(*kgo.Record) error) error {
	cl, err := k.Client(append([]kgo.Opt{kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {p: kgo.NewOffset().At(from)}}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords()}, opts...)...)
	if err != nil {
		return err
	}
	defer cl.Close()
	for {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		fs := cl.PollFetches(pctx)
		cancel()
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := FetchErr(fs); err != nil {
			return err
		}
		if fs.NumRecords() == 0 {
			if stable, err := k.stableReached(ctx, topic, p, end); err != nil || stable {
				return err
			}
			continue
		}
		var ferr error
		done := false
		fs.EachRecord(func(rec *kgo.Record) {
			if ferr != nil || rec.Offset >= end {
				done = true
				return
			}
			if !rec.Attrs.IsControl() {
				ferr = fn(rec)
			}
			done = done || rec.Offset >= end-1
		})
		if ferr != nil || done {
			return ferr
		}
	}
}

// stableReached reports whether the last stable offset of a partition
// (the read_committed end) is at least end.
func (k *Kafka) stableReached(ctx context.Context, topic string, p int32, end int64) (bool, error) {
	lso, err := k.adm.ListCommittedOffsets(ctx, topic)
	if err != nil {
		return false, err
	}
	o, ok := lso.Lookup(topic, p)
	if !ok {
		return false, fmt.Errorf("no partition %d", p)
	}
	if o.Err != nil {
		return false, o.Err
	}
	if o.Offset < end {
		k.logger.Info("restore waits for an open transaction", "topic", topic, "partition", p,
			"last stable offset", o.Offset, "end", end)
	}
	return o.Offset >= end, nil
}
