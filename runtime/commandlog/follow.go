package commandlog

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// One catalog for all servers of a service id: every server tails the
// command topic (follow) and applies each command as it arrives, in topic
// order, so a statement posted to any server takes effect on all.
//
// Appends are serialized as in ksqlDB: the appending server opens a
// transactional producer whose transactional id is the service id
// (begin). Initializing it fences the producer of any other server and
// aborts its open append. The server then applies the commands it has not
// seen yet (catchUp), so the statement is validated against the catalog
// as of the topic's end, and appends it in a transaction (appendTxn). If
// another server fenced it in between, the commit fails, nothing was
// applied, and the statement is run again from begin: against the newer
// catalog it either succeeds or fails cleanly (two racing CREATEs of one
// name: one success, one "already exists").
//
// The appending server applies its own statement itself before it
// answers, and moves next past it, so the follower skips it.

// MaxAppendAttempts bounds the runs of a statement fenced by appends of
// other servers. Between runs a fenced server waits a random, growing
// pause (appendBackoff), so that two servers racing do not fence each
// other in lockstep until both give up.
const MaxAppendAttempts = 8

// appendBackoff is the pause before the run after attempt: uniform in
// [0, 20 ms · 2^attempt), at most about 2.5 s.
func appendBackoff(attempt int) time.Duration {
	return time.Duration(rand.Int64N(int64(20*time.Millisecond) << min(attempt, 7)))
}

// ErrFenced is an append whose transaction did not commit: it lost the
// race to another server's append, or it was ended with an abort (see
// appendTxn). Nothing of it was applied; the statement runs again.
var ErrFenced = errors.New("another server appended to the command topic at the same time")

// commandTxn is one serialized append: the fencing producer.
type commandTxn struct {
	cl *kgo.Client
}

// Serialized runs a command-recording statement posted to this server:
// begin, catch up, run (its record appends through Append), run again
// when another server's append fenced it, at most MaxAppendAttempts
// times. The engine lock is held.
func (c *Log) Serialized(ctx context.Context, run func(context.Context) error) error {
	var err error
	for attempt := 0; attempt < MaxAppendAttempts; attempt++ {
		if err = c.inTxn(ctx, run); !errors.Is(err, ErrFenced) {
			return err
		}
		c.log.Info("command append fenced by another server; running the statement again", "attempt", attempt+1)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(appendBackoff(attempt)):
		}
	}
	return err
}

func (c *Log) inTxn(ctx context.Context, run func(context.Context) error) error {
	txn, err := c.begin(ctx)
	if err != nil {
		return fmt.Errorf("could not write to the command topic: %w", err)
	}
	defer txn.cl.Close()
	c.txn = txn
	defer func() { c.txn = nil }()
	if err := c.catchUp(ctx); err != nil {
		return fmt.Errorf("could not read the command topic: %w", err)
	}
	return run(ctx)
}

// begin opens the fencing producer: once ProducerID returns, every
// earlier producer of the service id is fenced and its open append
// aborted.
func (c *Log) begin(ctx context.Context) (*commandTxn, error) {
	cl, err := c.broker.Client(kgo.TransactionalID(c.serviceID), kgo.TransactionTimeout(10*time.Second),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(0))
	if err != nil {
		return nil, err
	}
	if _, _, err := cl.ProducerID(ctx); err != nil {
		cl.Close()
		return nil, err
	}
	return &commandTxn{cl: cl}, nil
}

// appendTxn writes cmd in a transaction of the fencing producer and
// returns its offset.
func (c *Log) appendTxn(ctx context.Context, r *physical.OutRecord) (int64, error) {
	cl := c.txn.cl
	if err := cl.BeginTransaction(); err != nil {
		return 0, err
	}
	res := cl.ProduceSync(ctx, toKgo(r))
	perr := res.FirstErr()
	try := kgo.TryCommit
	if perr != nil {
		try = kgo.TryAbort
	}
	eerr := cl.EndTransaction(ctx, try)
	if err := errors.Join(perr, eerr); err != nil {
		if isFenced(err) {
			return 0, fmt.Errorf("%w: %v", ErrFenced, err)
		}
		return 0, err
	}
	off := res[0].Record.Offset
	return off, c.confirmCommitted(ctx, off)
}

// confirmCommitted reads the record just appended at off back,
// read_committed: EndTransaction(TryCommit) returning nil does not prove
// a commit. franz-go (v1.22.3) ends a transaction with an abort, and
// returns nil, when it believes no produce of it succeeded, and under
// load it can believe so of one that did (seen here: the produce
// answered with its offset, then "no produce succeeded in this
// transaction … issuing an abort"). Such an append is gone from the
// topic while this server would apply it: the other servers and every
// restart would never see the statement. It is ErrFenced instead, and
// the statement runs again.
func (c *Log) confirmCommitted(ctx context.Context, off int64) error {
	end, err := c.broker.EndOffset(ctx, c.topic, 0)
	if err != nil {
		return fmt.Errorf("confirming the append at offset %d: %w", off, err)
	}
	committed := false
	err = c.broker.ReadRange(ctx, c.topic, 0, off, end, func(r *kgo.Record) error {
		committed = committed || r.Offset == off
		return nil
	})
	switch {
	case err != nil:
		return fmt.Errorf("confirming the append at offset %d: %w", off, err)
	case !committed:
		return fmt.Errorf("%w: its transaction was ended with an abort, not committed (the append at offset %d is not in the topic read_committed)", ErrFenced, off)
	}
	return nil
}

func isFenced(err error) bool {
	return errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerEpoch) ||
		errors.Is(err, kerr.InvalidProducerIDMapping) || errors.Is(err, kerr.InvalidTxnState)
}

// catchUp applies every command from next to the topic's current end.
// The engine lock is held.
func (c *Log) catchUp(ctx context.Context) error {
	end, err := c.broker.EndOffset(ctx, c.topic, 0)
	if err != nil || end <= c.next {
		return err
	}
	var recs []*physical.InRecord
	err = c.broker.ReadRange(ctx, c.topic, 0, c.next, end, func(r *kgo.Record) error {
		recs = append(recs, fromKgo(r))
		return nil
	})
	if err != nil {
		return err
	}
	c.applyRecords(ctx, recs)
	return nil
}

// applyRecords applies the records at or past next, in order. The engine lock is held.
func (c *Log) applyRecords(ctx context.Context, recs []*physical.InRecord) {
	for _, r := range recs {
		if r.Offset < c.next {
			continue
		}
		c.next = r.Offset + 1
		if cmd := c.accept(r); cmd != nil {
			c.eng.Apply(ctx, cmd)
		}
	}
	c.notify()
}

// notify wakes the requests waiting for a sequence number. The engine
// lock is held.
func (c *Log) notify() {
	close(c.applied)
	c.applied = make(chan struct{})
}

// follow tails the command topic from next until ctx ends, applying what
// other servers append.
func (c *Log) follow(ctx context.Context, from int64) {
	defer close(c.followDone)
	cl, err := c.broker.Client(kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{c.topic: {0: kgo.NewOffset().At(from)}}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.FetchMaxWait(200*time.Millisecond))
	if err != nil {
		c.log.Error("cannot follow the command topic", "err", err)
		return
	}
	defer cl.Close()
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return
		}
		if err := fetchErr(fs); err != nil {
			c.log.Warn("reading the command topic", "err", err)
			continue
		}
		var recs []*physical.InRecord
		fs.EachRecord(func(r *kgo.Record) { recs = append(recs, fromKgo(r)) })
		if len(recs) == 0 {
			continue
		}
		c.eng.Lock()
		c.applyRecords(ctx, recs)
		c.eng.Unlock()
	}
}

// StartFollowing starts follow from next; StopFollowing ends it.
func (c *Log) StartFollowing() {
	ctx, cancel := context.WithCancel(context.Background())
	c.stopFollow = cancel
	c.followDone = make(chan struct{})
	go c.follow(ctx, c.next)
}

func (c *Log) StopFollowing() {
	if c.stopFollow == nil {
		return
	}
	c.stopFollow()
	<-c.followDone
}

// Applied is closed (and replaced) when the log applied commands: a
// request waiting for a command's sequence number looks again then. The
// engine lock is held.
func (c *Log) Applied() <-chan struct{} { return c.applied }

// fromKgo converts a fetched record, copying its bytes.
func fromKgo(r *kgo.Record) *physical.InRecord {
	in := &physical.InRecord{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset,
		Key: append([]byte(nil), r.Key...), Value: append([]byte(nil), r.Value...), Timestamp: r.Timestamp.UnixMilli()}
	for _, h := range r.Headers {
		in.Headers = append(in.Headers, physical.Header{Key: h.Key, Value: append([]byte(nil), h.Value...)})
	}
	return in
}

// toKgo is an appended record for the log's partition 0 (the fencing
// producer's partitioner is manual).
func toKgo(r *physical.OutRecord) *kgo.Record {
	kr := &kgo.Record{Topic: r.Topic, Partition: r.Partition, Key: r.Key, Value: r.Value, Timestamp: time.UnixMilli(r.Timestamp)}
	for _, h := range r.Headers {
		kr.Headers = append(kr.Headers, kgo.RecordHeader{Key: h.Key, Value: h.Value})
	}
	return kr
}

// fetchErr is the first error of a poll other than its context's end.
func fetchErr(fs kgo.Fetches) error {
	var first error
	fs.EachError(func(t string, p int32, err error) {
		if first == nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			first = fmt.Errorf("fetch %s[%d]: %w", t, p, err)
		}
	})
	return first
}
