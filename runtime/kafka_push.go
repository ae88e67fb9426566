package runtime

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
	k        *kafkaCluster
	q        *transient
	cl       *kgo.Client
	tasks    *taskSet
	cancel   context.CancelFunc
	done     chan struct{}
	produced func(*kgo.Record, error) // the promise of every record written
	groups   *taskGroups              // multi-input tasks' records, released in time order
}

func (k *kafkaCluster) startTransient(q *transient) (runner, error) {
	p := &kafkaPush{k: k, q: q, done: make(chan struct{})}
	p.produced = p.onProduced
	p.tasks = newTaskSet(q.topo, q.taskEnvs(p, p).build)
	p.groups = newTaskGroups(q.topo, q.cfg.MaxTaskIdle)
	offsets, err := k.startOffsets(q)
	if err != nil {
		return nil, err
	}
	cl, err := k.client(kgo.ConsumePartitions(offsets),
		kgo.RecordPartitioner(partitioner()), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
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
	err = fmt.Errorf("push query %s could not write to %s: %w", p.q.id, r.Topic, err)
	p.q.eng.logger.Error("push query failed", "query", p.q.id, "err", err)
	p.q.finish(err)
	p.cancel()
}

// startOffsets positions every partition: source topics at the end (or
// start with auto.offset.reset=earliest), internal topics at the start.
func (k *kafkaCluster) startOffsets(q *transient) (map[string]map[int32]kgo.Offset, error) {
	internal := map[string]bool{}
	for _, t := range q.topo.Internal {
		internal[t.Name] = true
	}
	var topics []string
	for _, st := range q.topo.SubTopologies {
		topics = append(topics, st.Topics...)
	}
	var listed kadm.ListedOffsets
	err := retryUnknownTopic(context.Background(), func() error {
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
		if internal[o.Topic] || q.cfg.FromEarliest {
			off = kgo.NewOffset().AtStart()
		}
		out[o.Topic][o.Partition] = off
	})
	return out, nil
}

// Emit implements physical.Emitter (repartition records).
func (p *kafkaPush) Emit(rec *physical.OutRecord) {
	p.cl.Produce(context.Background(), toKgo(rec), p.produced)
}

// sendChangelog implements changelogSink.
func (p *kafkaPush) sendChangelog(topic string, part int32, key, value []byte) {
	p.cl.Produce(context.Background(), changelogRecord(new(kgo.Record), topic, part, key, value), p.produced)
}

func (p *kafkaPush) loop(ctx context.Context) {
	defer close(p.done)
	for ctx.Err() == nil {
		fs := p.poll(ctx)
		if ctx.Err() != nil {
			return
		}
		if err := fetchErr(fs); err != nil {
			p.q.finish(err)
			return
		}
		err := p.processPush(fs)
		if err == nil {
			err = p.punctuate()
		}
		if err != nil {
			if physical.IsStopped(err) {
				err = nil
			}
			p.q.finish(err)
			return
		}
	}
}

// poll waits for records; with window.close.idle.ms it returns at least
// that often, so quiet windows can close by the wall clock.
func (p *kafkaPush) poll(ctx context.Context) kgo.Fetches {
	wait := time.Duration(p.q.cfg.IdleCloseMs) * time.Millisecond
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
	if p.q.cfg.IdleCloseMs <= 0 {
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

func (p *kafkaPush) stop() error {
	p.cancel()
	<-p.done
	p.cl.Close()
	p.tasks.closeAll()
	return nil
}
