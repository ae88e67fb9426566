package runtime

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/sql/ast"
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

// maxAppendAttempts bounds the runs of a statement fenced by appends of
// other servers. Between runs a fenced server waits a random, growing
// pause (appendBackoff), so that two servers racing do not fence each
// other in lockstep until both give up.
const maxAppendAttempts = 8

// appendBackoff is the pause before the run after attempt: uniform in
// [0, 20 ms · 2^attempt), at most about 2.5 s.
func appendBackoff(attempt int) time.Duration {
	return time.Duration(rand.Int64N(int64(20*time.Millisecond) << min(attempt, 7)))
}

// seqWaitTimeout bounds how long a request with commandSequenceNumber
// waits for the command log to reach it.
const seqWaitTimeout = 5 * time.Second

// errFenced is an append that lost the race to another server's.
var errFenced = errors.New("another server appended to the command topic at the same time")

// commandTxn is one serialized append: the fencing producer.
type commandTxn struct {
	cl *kgo.Client
}

// recordsCommand reports whether stmt may append to the command topic.
func recordsCommand(stmt ast.Statement) bool {
	switch stmt.(type) {
	case *ast.CreateSource, *ast.CreateAsSelect, *ast.InsertInto, *ast.Drop,
		*ast.CreateType, *ast.DropType, *ast.Terminate:
		return true
	}
	return false
}

// execSerialized runs a command-recording statement posted to this
// server: begin, catch up, run (its record appends through e.txn),
// retried when fenced. e.mu is held.
func (e *Engine) execSerialized(ctx context.Context, stmt ast.Statement, s *session) (api.Entity, error) {
	var err error
	for attempt := 0; attempt < maxAppendAttempts; attempt++ {
		var ent api.Entity
		ent, err = e.execInTxn(ctx, stmt, s)
		if !errors.Is(err, errFenced) {
			return ent, err
		}
		e.logger.Info("command append fenced by another server; running the statement again", "attempt", attempt+1)
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(appendBackoff(attempt)):
		}
	}
	return nil, err
}

func (e *Engine) execInTxn(ctx context.Context, stmt ast.Statement, s *session) (api.Entity, error) {
	txn, err := e.cmdLog.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("could not write to the command topic: %w", err)
	}
	defer txn.cl.Close()
	e.cmdLog.txn = txn
	defer func() { e.cmdLog.txn = nil }()
	if err := e.cmdLog.catchUp(ctx); err != nil {
		return nil, fmt.Errorf("could not read the command topic: %w", err)
	}
	return e.dispatchLocked(ctx, stmt, s, nil)
}

// begin opens the fencing producer: once ProducerID returns, every
// earlier producer of the service id is fenced and its open append
// aborted.
func (c *commandLog) begin(ctx context.Context) (*commandTxn, error) {
	cl, err := c.kc.Client(kgo.TransactionalID(c.e.opts.serviceID), kgo.TransactionTimeout(10*time.Second),
		kgo.RecordPartitioner(exec.Partitioner()), kgo.ProducerLinger(0))
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
func (c *commandLog) appendTxn(ctx context.Context, r *physical.OutRecord) (int64, error) {
	cl := c.txn.cl
	if err := cl.BeginTransaction(); err != nil {
		return 0, err
	}
	res := cl.ProduceSync(ctx, exec.ToKgo(r))
	perr := res.FirstErr()
	try := kgo.TryCommit
	if perr != nil {
		try = kgo.TryAbort
	}
	eerr := cl.EndTransaction(ctx, try)
	if err := errors.Join(perr, eerr); err != nil {
		if isFenced(err) {
			return 0, fmt.Errorf("%w: %v", errFenced, err)
		}
		return 0, err
	}
	return res[0].Record.Offset, nil
}

func isFenced(err error) bool {
	return errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerEpoch) ||
		errors.Is(err, kerr.InvalidProducerIDMapping) || errors.Is(err, kerr.InvalidTxnState)
}

// catchUp applies every command from next to the topic's current end.
// e.mu is held.
func (c *commandLog) catchUp(ctx context.Context) error {
	end, err := c.kc.EndOffset(ctx, c.topic, 0)
	if err != nil || end <= c.next {
		return err
	}
	var recs []*physical.InRecord
	err = c.kc.ReadRange(ctx, c.topic, 0, c.next, end, func(r *kgo.Record) error {
		recs = append(recs, fromKgoCopy(r))
		return nil
	})
	if err != nil {
		return err
	}
	c.applyRecords(ctx, recs)
	return nil
}

// applyRecords applies the records at or past next, in order. e.mu is
// held.
func (c *commandLog) applyRecords(ctx context.Context, recs []*physical.InRecord) {
	for _, r := range recs {
		if r.Offset < c.next {
			continue
		}
		c.next = r.Offset + 1
		if cmd := c.accept(r); cmd != nil {
			c.apply(ctx, cmd)
		}
	}
	c.notify()
}

// notify wakes the requests waiting for a sequence number. e.mu is held.
func (c *commandLog) notify() {
	close(c.applied)
	c.applied = make(chan struct{})
}

// follow tails the command topic from next until ctx ends, applying what
// other servers append.
func (c *commandLog) follow(ctx context.Context, from int64) {
	defer close(c.followDone)
	cl, err := c.kc.Client(kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{c.topic: {0: kgo.NewOffset().At(from)}}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.FetchMaxWait(200*time.Millisecond))
	if err != nil {
		c.e.logger.Error("cannot follow the command topic", "err", err)
		return
	}
	defer cl.Close()
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return
		}
		if err := exec.FetchErr(fs); err != nil {
			c.e.logger.Warn("reading the command topic", "err", err)
			continue
		}
		var recs []*physical.InRecord
		fs.EachRecord(func(r *kgo.Record) { recs = append(recs, fromKgoCopy(r)) })
		if len(recs) == 0 {
			continue
		}
		c.e.mu.Lock()
		c.applyRecords(ctx, recs)
		c.e.unlock()
	}
}

// startFollowing starts follow from next; stopFollowing ends it.
func (c *commandLog) startFollowing() {
	ctx, cancel := context.WithCancel(context.Background())
	c.stopFollow = cancel
	c.followDone = make(chan struct{})
	go c.follow(ctx, c.next)
}

func (c *commandLog) stopFollowing() {
	if c.stopFollow == nil {
		return
	}
	c.stopFollow()
	<-c.followDone
}

// waitForSeq waits until this server has applied the command with
// sequence number seq (a request's commandSequenceNumber).
func (e *Engine) waitForSeq(ctx context.Context, seq int64) error {
	if e.cmdLog == nil {
		return nil
	}
	timer := time.NewTimer(seqWaitTimeout)
	defer timer.Stop()
	for {
		e.mu.Lock()
		reached, ch := e.seq > seq, e.cmdLog.applied
		e.mu.Unlock()
		if reached {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			return &api.ErrorMessage{ErrorCode: api.CodeCommandQueueCatchupTimeout,
				Message: fmt.Sprintf("Timed out while waiting for a previous command to execute. command sequence number: %d", seq)}
		}
	}
}

// fromKgoCopy converts a fetched record, copying its bytes.
func fromKgoCopy(r *kgo.Record) *physical.InRecord {
	in := &physical.InRecord{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset,
		Key: append([]byte(nil), r.Key...), Value: append([]byte(nil), r.Value...), Timestamp: r.Timestamp.UnixMilli()}
	for _, h := range r.Headers {
		in.Headers = append(in.Headers, physical.Header{Key: h.Key, Value: append([]byte(nil), h.Value...)})
	}
	return in
}
