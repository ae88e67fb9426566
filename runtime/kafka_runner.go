package runtime

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// kafkaRunner runs one persistent query as a member of the consumer group
// named by its application id. Each assigned source partition gets a
// task; a poll loop feeds records to tasks (spread over
// num.stream.threads goroutines, one task on one goroutine at a time),
// and every commit.interval.ms the producer is flushed and the offsets of
// processed records are committed (at-least-once: outputs are
// acknowledged before the input offsets that produced them are committed).
//
//	poll ──► tasks (per partition, N workers) ──► produce (async)
//	  ▲                                              │
//	  └── commit offsets ◄── flush ◄── every interval┘
type kafkaRunner struct {
	q        *query
	cl       *kgo.Client
	interval time.Duration
	workers  int
	cancel   context.CancelFunc
	done     chan struct{}

	mu        sync.Mutex // guards tasks and processed during rebalances
	tasks     map[tp]*physical.Task
	processed map[tp]int64 // next offset to commit
	committed map[tp]int64 // last committed offset
	emitErr   error
}

type tp struct {
	topic     string
	partition int32
}

func (k *kafkaCluster) start(q *query) (runner, error) {
	props := q.props
	r := &kafkaRunner{q: q, tasks: map[tp]*physical.Task{}, processed: map[tp]int64{}, committed: map[tp]int64{},
		interval: time.Duration(props.Int(PropCommitInterval, 2000)) * time.Millisecond,
		workers:  max(1, props.Int(PropNumThreads, 1)), done: make(chan struct{})}
	reset := kgo.NewOffset().AtEnd()
	if props[PropOffsetReset] == "earliest" {
		reset = kgo.NewOffset().AtStart()
	}
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(k.seeds...),
		kgo.ConsumerGroup(q.appID),
		kgo.ConsumeTopics(q.topo.SubTopologies[0].Topics...),
		kgo.ConsumeResetOffset(reset),
		kgo.DisableAutoCommit(),
		kgo.BlockRebalanceOnPoll(),
		kgo.OnPartitionsAssigned(r.assigned),
		kgo.OnPartitionsRevoked(r.revoked),
		kgo.OnPartitionsLost(r.lost),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)),
		kgo.ProducerLinger(5*time.Millisecond),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
	)
	if err != nil {
		return nil, err
	}
	r.cl = cl
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go r.loop(ctx)
	return r, nil
}

func (r *kafkaRunner) assigned(_ context.Context, _ *kgo.Client, parts map[string][]int32) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for topic, ps := range parts {
		for _, p := range ps {
			env := &physical.TaskEnv{Partition: p, Emit: r, Log: r.q.procLog()}
			t, err := r.q.topo.NewTask(0, env)
			if err != nil {
				r.q.fail(err)
				continue
			}
			r.tasks[tp{topic, p}] = t
		}
	}
	r.q.setState(StateRunning, nil)
}

func (r *kafkaRunner) revoked(ctx context.Context, cl *kgo.Client, parts map[string][]int32) {
	r.commit(ctx)
	r.drop(parts)
}

func (r *kafkaRunner) lost(_ context.Context, _ *kgo.Client, parts map[string][]int32) {
	r.drop(parts)
}

func (r *kafkaRunner) drop(parts map[string][]int32) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for topic, ps := range parts {
		for _, p := range ps {
			delete(r.tasks, tp{topic, p})
			delete(r.processed, tp{topic, p})
			delete(r.committed, tp{topic, p})
		}
	}
}

// Emit implements physical.Emitter: records are produced asynchronously;
// the first failure fails the query at the next commit.
func (r *kafkaRunner) Emit(rec *physical.OutRecord) {
	r.cl.Produce(context.Background(), toKgo(rec), func(_ *kgo.Record, err error) {
		if err != nil {
			r.mu.Lock()
			if r.emitErr == nil {
				r.emitErr = err
			}
			r.mu.Unlock()
		}
	})
}

func (r *kafkaRunner) loop(ctx context.Context) {
	defer close(r.done)
	last := time.Now()
	for ctx.Err() == nil {
		pctx, cancel := context.WithTimeout(ctx, r.interval)
		fs := r.cl.PollRecords(pctx, 10_000)
		cancel()
		if ctx.Err() != nil {
			r.cl.AllowRebalance()
			break
		}
		if err := fetchErr(fs); err != nil {
			r.q.logger().Warn("fetch error", "query", r.q.id, "err", err)
		}
		if err := r.process(fs); err != nil {
			r.cl.AllowRebalance()
			r.q.fail(err)
			return
		}
		if time.Since(last) >= r.interval {
			r.commit(ctx)
			last = time.Now()
		}
		r.cl.AllowRebalance()
	}
	r.commit(context.Background())
}

// process runs the fetched records through their tasks, one partition per
// worker at a time.
func (r *kafkaRunner) process(fs kgo.Fetches) error {
	var parts []kgo.FetchTopicPartition
	fs.EachPartition(func(p kgo.FetchTopicPartition) {
		if len(p.Records) > 0 {
			parts = append(parts, p)
		}
	})
	if len(parts) == 0 {
		return nil
	}
	errs := make([]error, len(parts))
	sem := make(chan struct{}, r.workers)
	var wg sync.WaitGroup
	for i := range parts {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			errs[i] = r.processPartition(parts[i])
		}(i)
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (r *kafkaRunner) processPartition(p kgo.FetchTopicPartition) error {
	key := tp{p.Topic, p.Partition}
	r.mu.Lock()
	task := r.tasks[key]
	r.mu.Unlock()
	if task == nil {
		return nil // revoked meanwhile
	}
	var in physical.InRecord
	for _, rec := range p.Records {
		fromKgo(rec, &in)
		if err := task.Process(&in); err != nil {
			return err
		}
		r.q.processed.Add(1)
	}
	r.mu.Lock()
	r.processed[key] = p.Records[len(p.Records)-1].Offset + 1
	r.mu.Unlock()
	return nil
}

// commit flushes outputs and then commits the processed input offsets.
func (r *kafkaRunner) commit(ctx context.Context) {
	if err := r.cl.Flush(ctx); err != nil {
		return
	}
	r.mu.Lock()
	if r.emitErr != nil {
		err := r.emitErr
		r.mu.Unlock()
		r.q.fail(err)
		return
	}
	offsets := map[string]map[int32]kgo.EpochOffset{}
	for k, off := range r.processed {
		if r.committed[k] == off {
			continue
		}
		r.committed[k] = off
		if offsets[k.topic] == nil {
			offsets[k.topic] = map[int32]kgo.EpochOffset{}
		}
		offsets[k.topic][k.partition] = kgo.EpochOffset{Epoch: -1, Offset: off}
	}
	r.mu.Unlock()
	if len(offsets) == 0 {
		return
	}
	r.cl.CommitOffsetsSync(ctx, offsets, func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
		if err == nil {
			err = commitRespErr(resp)
		}
		if err != nil && ctx.Err() == nil {
			r.q.logger().Warn("commit failed", "query", r.q.id, "err", err)
		}
	})
}

func (r *kafkaRunner) stop() error {
	r.cancel()
	<-r.done
	r.cl.Close()
	return nil
}

func commitRespErr(resp *kmsg.OffsetCommitResponse) error {
	if resp == nil {
		return nil
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return err
			}
		}
	}
	return nil
}
