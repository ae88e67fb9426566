package exec

import (
	"context"
	"fmt"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// kafkaPush runs a transient push query: a group-less consumer of the
// topology's topics (source topics from auto.offset.reset, its own
// internal topics from the start), tasks created per partition as records
// arrive, rows handed to the query's RowSink. Its stores are local only
// and dropped with the query. A repartition or changelog record the
// broker refuses ends the query with that error: the client sees it
// rather than rows computed from an incomplete repartition topic.
type kafkaPush struct {
	k        *Kafka
	q        *Push
	cl       *kgo.Client
	tasks    *taskSet
	cancel   context.CancelFunc
	done     chan struct{}
	produced func(*kgo.Record, error) // the promise of every record written
	groups   *taskGroups              // multi-input tasks' records, released in time order
}

// pushFetchBytes bounds one fetch response of a push query, all
// partitions: what a stalled reader holds fetched ahead (the engine's
// row budget bounds the rows queued for the client).
const pushFetchBytes = 1 << 20

// StartPush implements Cluster.
func (k *Kafka) StartPush(q *Push) (Runner, error) {
	p := &kafkaPush{k: k, q: q, done: make(chan struct{})}
	p.produced = p.onProduced
	p.tasks = newTaskSet(q.Topology, q.envs(p, p).build)
	p.groups = newTaskGroups(q.Topology, q.Config.MaxTaskIdle)
	offsets, err := k.startOffsets(q)
	if err != nil {
		return nil, err
	}
	cl, err := k.Client(kgo.ConsumePartitions(offsets),
		kgo.RecordPartitioner(Partitioner()), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		// What a stalled reader holds fetched ahead (see pushFetchBytes).
		kgo.FetchMaxBytes(pushFetchBytes), kgo.FetchMaxPartitionBytes(pushFetchBytes))
	if err != nil {
		return nil, err
	}
	p.cl = cl
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	go p.loop(ctx)
	return p, nil
}

// onProduced ends the query on the first record the broker refused.
func (p *kafkaPush) onProduced(r *kgo.Record, err error) {
	if err == nil {
		return
	}
	err = fmt.Errorf("push query %s could not write to %s: %w", p.q.ID, r.Topic, err)
	p.fail(err)
	p.cancel()
}

// fail ends the query with err told with its class and what to do
// (error_class.go), as a persistent query's failure is.
func (p *kafkaPush) fail(err error) {
	err = pushFailure(err)
	p.q.Logger.Error("push query failed", "query", p.q.ID, "err", err)
	p.q.Finish(err)
}

// startOffsets positions every partition: source topics at the end (or
// start with auto.offset.reset=earliest), internal topics at the start.
func (k *Kafka) startOffsets(q *Push) (map[string]map[int32]kgo.Offset, error) {
	internal := map[string]bool{}
	for _, t := range q.Topology.Internal {
		internal[t.Name] = true
	}
	var topics []string
	for _, st := range q.Topology.SubTopologies {
		topics = append(topics, st.Topics...)
	}
	var listed kadm.ListedOffsets
	err := RetryUnknownTopic(context.Background(), func() error {
		var err error
		if listed, err = k.adm.ListEndOffsets(context.Background(), topics...); err != nil {
			return err
		}
		return listed.Error()
	})
	if err != nil {
		return nil, err
	}
	out := map[string]map[int32]kgo.Offset{}
	listed.Each(func(o kadm.ListedOffset) {
		if out[o.Topic] == nil {
			out[o.Topic] = map[int32]kgo.Offset{}
		}
		off := kgo.NewOffset().At(o.Offset)
		if internal[o.Topic] || q.Config.FromEarliest {
			off = kgo.NewOffset().AtStart()
		}
		out[o.Topic][o.Partition] = off
	})
	return out, nil
}

// Emit implements physical.Emitter (repartition records).
func (p *kafkaPush) Emit(rec *physical.OutRecord) {
	p.cl.Produce(context.Background(), ToKgo(rec), p.produced)
}

// sendChangelog implements changelogSink.
func (p *kafkaPush) sendChangelog(topic string, part int32, key, value []byte, ts int64) {
	p.cl.Produce(context.Background(), changelogRecord(new(kgo.Record), topic, part, key, value, ts), p.produced)
}

// loop polls and processes until the query stops or fails. A fetch error
// of the retriable class is retried (the client fetches the partition
// again; what the poll brought of other partitions is processed), at most
// maxRecoveries polls in a row; every other error ends the query with its
// class (pushFailure). A record's failure cannot be redone (the rows
// before it reached the client), so it ends the query whatever its class.
func (p *kafkaPush) loop(ctx context.Context) {
	defer close(p.done)
	retries := 0
	for ctx.Err() == nil {
		fs := p.poll(ctx)
		if ctx.Err() != nil {
			return
		}
		if err := FetchErr(fs); err == nil {
			retries = 0
		} else if retries++; classify(err) != classRetriable || retries > maxRecoveries {
			p.fail(err)
			return
		} else {
			p.q.Logger.Warn("push query: fetch error; retrying", "query", p.q.ID, "err", err, "retries", retries)
		}
		err := p.processPush(fs)
		if err == nil {
			err = p.punctuate()
		}
		if physical.IsStopped(err) {
			p.q.Finish(nil)
			return
		}
		if err != nil {
			p.fail(err)
			return
		}
	}
}

// poll waits for records; with window.close.idle.ms it returns at least
// that often, so quiet windows can close by the wall clock.
func (p *kafkaPush) poll(ctx context.Context) kgo.Fetches {
	wait := time.Duration(p.q.Config.IdleCloseMs) * time.Millisecond
	if wait <= 0 {
		wait = time.Hour
	}
	// a partition group waiting on an empty input wakes the poll too
	if wait = p.groups.pollTimeout(wait, time.Now()); wait == time.Hour {
		return p.cl.PollFetches(ctx)
	}
	pctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	return p.cl.PollFetches(pctx)
}

// punctuate gives every task the wall-clock time, when
// window.close.idle.ms asks for it.
func (p *kafkaPush) punctuate() error {
	if p.q.Config.IdleCloseMs <= 0 {
		return nil
	}
	now := time.Now().UnixMilli()
	for _, t := range p.tasks.all() {
		if err := t.task.Punctuate(now); err != nil {
			return err
		}
	}
	return nil
}

func (p *kafkaPush) Stop() error {
	p.cancel()
	<-p.done
	p.cl.Close()
	p.tasks.closeAll()
	return nil
}
