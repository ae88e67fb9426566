package runtime

import (
	"context"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kgo"
)

// kafkaPush runs a transient push query: a group-less consumer of the
// source topics starting at auto.offset.reset, tasks created per
// partition as records arrive, rows handed to the query's RowSink.
type kafkaPush struct {
	cl     *kgo.Client
	cancel context.CancelFunc
	done   chan struct{}
}

func (k *kafkaCluster) startTransient(q *transient) (runner, error) {
	reset := kgo.NewOffset().AtEnd()
	if q.props[PropOffsetReset] == "earliest" {
		reset = kgo.NewOffset().AtStart()
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(k.seeds...),
		kgo.ConsumeTopics(q.topo.SubTopologies[0].Topics...),
		kgo.ConsumeResetOffset(reset),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &kafkaPush{cl: cl, cancel: cancel, done: make(chan struct{})}
	go p.loop(ctx, q)
	return p, nil
}

func (p *kafkaPush) loop(ctx context.Context, q *transient) {
	defer close(p.done)
	tasks := map[tp]*physical.Task{}
	var in physical.InRecord
	for ctx.Err() == nil {
		fs := p.cl.PollFetches(ctx)
		if err := fetchErr(fs); err != nil {
			q.finish(err)
			return
		}
		var err error
		fs.EachRecord(func(r *kgo.Record) {
			if err != nil {
				return
			}
			key := tp{r.Topic, r.Partition}
			t := tasks[key]
			if t == nil {
				env := &physical.TaskEnv{Partition: r.Partition, Rows: q, Log: q.eng.procLog}
				if t, err = q.topo.NewTask(0, env); err != nil {
					return
				}
				tasks[key] = t
			}
			fromKgo(r, &in)
			err = t.Process(&in)
		})
		if err != nil {
			if physical.IsStopped(err) {
				err = nil
			}
			q.finish(err)
			return
		}
	}
}

func (p *kafkaPush) stop() error {
	p.cancel()
	<-p.done
	p.cl.Close()
	return nil
}
