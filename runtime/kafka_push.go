package runtime

import (
	"context"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// kafkaPush runs a transient push query: a group-less consumer of the
// topology's topics (source topics from auto.offset.reset, its own
// internal topics from the start), tasks created per partition as records
// arrive, rows handed to the query's RowSink. Its stores are local only
// and dropped with the query.
type kafkaPush struct {
	k      *kafkaCluster
	q      *transient
	cl     *kgo.Client
	tasks  *taskSet
	cancel context.CancelFunc
	done   chan struct{}
}

func (k *kafkaCluster) startTransient(q *transient) (runner, error) {
	p := &kafkaPush{k: k, q: q, done: make(chan struct{})}
	p.tasks = newTaskSet(q.topo, q.taskEnvs(p, p).build)
	offsets, err := k.startOffsets(q)
	if err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(k.seeds...), kgo.ConsumePartitions(offsets),
		kgo.RecordPartitioner(partitioner()), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		return nil, err
	}
	p.cl = cl
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	go p.loop(ctx)
	return p, nil
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
		if internal[o.Topic] || q.cfg.fromEarliest {
			off = kgo.NewOffset().AtStart()
		}
		out[o.Topic][o.Partition] = off
	})
	return out, nil
}

// Emit implements physical.Emitter (repartition records).
func (p *kafkaPush) Emit(rec *physical.OutRecord) {
	p.cl.Produce(context.Background(), toKgo(rec), nil)
}

// sendChangelog implements changelogSink.
func (p *kafkaPush) sendChangelog(topic string, part int32, key, value []byte) {
	p.cl.Produce(context.Background(), changelogRecord(topic, part, key, value), nil)
}

func (p *kafkaPush) loop(ctx context.Context) {
	defer close(p.done)
	var in physical.InRecord
	for ctx.Err() == nil {
		fs := p.cl.PollFetches(ctx)
		if err := fetchErr(fs); err != nil {
			p.q.finish(err)
			return
		}
		var err error
		fs.EachRecord(func(r *kgo.Record) {
			if err != nil {
				return
			}
			var t *taskEntry
			if t, err = p.tasks.get(r.Topic, r.Partition); err != nil {
				return
			}
			fromKgo(r, &in)
			err = t.task.Process(&in)
		})
		if err != nil {
			if physical.IsStopped(err) {
				err = nil
			}
			p.q.finish(err)
			return
		}
	}
}

func (p *kafkaPush) stop() error {
	p.cancel()
	<-p.done
	p.cl.Close()
	p.tasks.closeAll()
	return nil
}
