package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// command is one accepted statement in the command topic. Replaying the
// topic in order rebuilds the catalog and restarts persistent queries
// with the same ids (and so the same consumer groups and offsets).
type command struct {
	Seq     int64             `json:"seq"`
	SQL     string            `json:"statement"`
	Props   map[string]string `json:"streamsProperties,omitempty"`
	QueryID string            `json:"queryId,omitempty"`
	// AppPrefix is what the application ids of the queries this command
	// starts begin with (queryAppPrefix when it was recorded); empty in
	// commands recorded before it was (see commandAppID).
	AppPrefix string `json:"appIdPrefix,omitempty"`
	// InternalFormats is internalFormatsOfSources when the queries this
	// command starts write their internal topics in their sources'
	// formats; empty in commands recorded before (JSON, see
	// legacyInternalJSON).
	InternalFormats string `json:"internalFormats,omitempty"`
}

// commandLog is the command topic `_<service-id>_command_topic`: one
// partition, infinite retention.
//
// Every server of the service id follows it (see command_follower.go);
// what runs is decided by the signed chain (command_chain.go).
type commandLog struct {
	e       *Engine
	kc      *kafkaCluster
	topic   string
	signer  *commandSigner
	timeout time.Duration // bounds the read of the topic at the start
	pending []*physical.InRecord

	// Under e.mu:
	next    int64         // offset of the next record to apply
	fence   int64         // signatures are required from here (see commandSigner.fence)
	chain   commandChain  // what was accepted so far
	txn     *commandTxn   // the serialized append in progress, if any
	applied chan struct{} // closed (and replaced) when commands were applied

	stopFollow context.CancelFunc
	followDone chan struct{}
}

// PropCommandReplayTimeout bounds the read of the command topic at the
// start (sqlstream's own; default 120000 ms): a transaction some client
// left open there holds back read_committed readers until the broker
// aborts it, and a start must not wait for that silently.
const PropCommandReplayTimeout = "sqlstream.command.topic.replay.timeout.ms"

// openCommandLog creates the command topic if needed, reads it and loads
// the key to verify it with (dir is the data directory): a key file is
// never made over a topic that holds signed records. The records are
// applied by replay.
func openCommandLog(ctx context.Context, e *Engine, kc *kafkaCluster, topic, dir string) (*commandLog, error) {
	c := &commandLog{e: e, kc: kc, topic: topic, applied: make(chan struct{}),
		timeout: time.Duration(e.props.Int(PropCommandReplayTimeout, 120000)) * time.Millisecond}
	err := e.cluster.createTopic(ctx, topicSpec{name: topic, partitions: 1, replicas: 1,
		configs: map[string]string{"retention.ms": "-1", "cleanup.policy": "delete"}})
	if err != nil {
		return nil, fmt.Errorf("command topic: %w", err)
	}
	if c.pending, err = c.records(ctx); err != nil {
		return nil, fmt.Errorf("command topic: %w", err)
	}
	c.signer, err = loadCommandSigner(dir, e.props[PropCommandSecret], anySigned(c.pending))
	if errors.Is(err, errNoKey) {
		return nil, c.noKeyError(err)
	}
	return c, err
}

// noKeyError says what to do about a signed topic this server has no key
// for.
func (c *commandLog) noKeyError(err error) error {
	return fmt.Errorf("command topic %s holds signed commands, but %w. If this server is one of several of service id %q, "+
		"set %s in every server's config file to one shared secret (README: several servers); if its data directory was "+
		"lost or wiped, restore %s from a backup. The server does not start: a new key would not verify these commands",
		c.topic, err, c.e.opts.serviceID, PropCommandSecret, keyFile)
}

// unverifiableError says what to do about a topic whose signed records
// were all written with another key.
func (c *commandLog) unverifiableError(signed int) error {
	return fmt.Errorf("%s holds %d signed records and none verifies with this server's key (%s): the servers that wrote them "+
		"have another key. Set %s to the secret the servers of service id %q use (README: several servers), or restore the %s "+
		"they were signed with. The server does not start rather than run without their streams and queries and sign a second history",
		c.topic, signed, c.signer.source, PropCommandSecret, c.e.opts.serviceID, keyFile)
}

// append writes cmd through the serialized append in progress (see
// execSerialized), chained after the head, and moves next and the head
// past it: this server applies its own command itself. e.mu is held.
func (c *commandLog) append(ctx context.Context, cmd *command) error {
	b, err := json.Marshal(cmd)
	if err != nil {
		return err
	}
	return c.appendRecord(ctx, &physical.OutRecord{Topic: c.topic, Partition: 0,
		Key: []byte(strconv.FormatInt(cmd.Seq, 10)), Value: b, Timestamp: nowMillis()})
}

func (c *commandLog) appendRecord(ctx context.Context, r *physical.OutRecord) error {
	if c.txn == nil {
		return errors.New("command append outside a serialized append")
	}
	sig := c.signer.sign(r, c.chain.head)
	off, err := c.appendTxn(ctx, r)
	if err != nil {
		return err
	}
	c.next = off + 1
	c.chain.head, c.chain.started = sig, true
	return nil
}

// replay re-executes every command of the topic that the chain accepts
// and starts the chain if the topic has none yet. A command that fails
// on replay (e.g. its topic was deleted outside sqlstream) is logged and
// skipped; the server still starts. A topic whose signed records are all
// another key's is an error: the server must not start empty beside the
// servers that wrote them.
func (c *commandLog) replay(ctx context.Context) error {
	c.e.mu.Lock()
	defer c.e.unlock()
	recs := c.pending
	c.pending = nil
	// Whether any signed record verifies does not depend on the fence:
	// a server that refuses to start writes nothing.
	dry := c.chain
	for _, r := range recs {
		_, _ = dry.check(c.signer, r, 0)
	}
	if dry.unverifiable() {
		return c.unverifiableError(dry.signed)
	}
	fence, err := c.signer.fence(recs, c.e.logger)
	if err != nil {
		return fmt.Errorf("command topic signing marker: %w", err)
	}
	c.fence = fence
	c.applyRecords(ctx, recs)
	if c.chain.started {
		return nil
	}
	return c.startChain(ctx)
}

// startChain appends the chain start, serialized like a statement; a
// server that started the chain meanwhile makes it unneeded, one with
// another key makes this server refuse to start. The key, if new, is
// saved once the chain start is in the topic. e.mu is held.
func (c *commandLog) startChain(ctx context.Context) error {
	var err error
	for attempt := 0; attempt < maxAppendAttempts; attempt++ {
		if err = c.tryStartChain(ctx); !errors.Is(err, errFenced) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(appendBackoff(attempt)):
		}
	}
	return err
}

func (c *commandLog) tryStartChain(ctx context.Context) error {
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
	if c.chain.unverifiable() {
		return c.unverifiableError(c.chain.signed)
	}
	if !c.chain.started {
		if err := c.appendRecord(ctx, chainStartRecord(c.topic)); err != nil {
			return err
		}
		c.e.logger.Info("started the signed command chain", "topic", c.topic, "offset", c.next-1, "key", c.signer.source)
	}
	if err := c.signer.save(); err != nil {
		return fmt.Errorf("command topic key: %w", err)
	}
	return nil
}

// records reads the whole command topic, read_committed, up to its end
// at the start of the read: an empty fetch once the last stable offset
// has reached that end ends it (a torn tail the broker truncated leaves
// no record at the end offset). The read is bounded by c.timeout.
func (c *commandLog) records(ctx context.Context) ([]*physical.InRecord, error) {
	var starts, ends map[int32]int64
	err := retryUnknownTopic(ctx, func() (err error) {
		starts, ends, err = c.kc.offsetRange(ctx, c.topic)
		return err
	})
	start, end := starts[0], ends[0]
	if err != nil || end <= start {
		return nil, err
	}
	rctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var recs []*physical.InRecord
	err = c.kc.readRange(rctx, c.topic, 0, start, end, func(r *kgo.Record) error {
		recs = append(recs, fromKgoCopy(r))
		return nil
	})
	if err != nil && ctx.Err() == nil && rctx.Err() != nil {
		return nil, c.stuckError(ctx, end, recs)
	}
	return recs, err
}

// stuckError is a read of the topic that did not reach end in time.
func (c *commandLog) stuckError(ctx context.Context, end int64, recs []*physical.InRecord) error {
	at := "none"
	if len(recs) > 0 {
		at = strconv.FormatInt(recs[len(recs)-1].Offset, 10)
	}
	lso := "unknown"
	if o, err := c.kc.adm.ListCommittedOffsets(ctx, c.topic); err == nil {
		if l, ok := o.Lookup(c.topic, 0); ok && l.Err == nil {
			lso = strconv.FormatInt(l.Offset, 10)
		}
	}
	return fmt.Errorf("the read of %s did not reach its end offset %d within %v (last record read: %s, last stable offset: %s). "+
		"A transaction left open in the topic holds read_committed readers back until the broker aborts it (its producer's "+
		"transaction.timeout.ms); start again after that, or raise %s", c.topic, end, c.timeout, at, lso, PropCommandReplayTimeout)
}

// accept checks r against the chain and decodes it: nil when it must not
// run (logged). e.mu is held.
func (c *commandLog) accept(r *physical.InRecord) *command {
	v, err := c.chain.check(c.signer, r, c.fence)
	switch {
	case err != nil:
		c.e.logger.Error("rejecting a command record: it is not executed",
			"topic", c.topic, "offset", r.Offset, "key", string(r.Key), "reason", err)
		return nil
	case v == chainStarted:
		return nil
	case v == unsignedLegacy:
		c.e.logger.Warn("running an unsigned command that predates command signing", "offset", r.Offset)
	case v == signedLegacy:
		c.e.logger.Info("running a command of the earlier record format (before the command chain)", "offset", r.Offset)
	}
	var cmd command
	if err := json.Unmarshal(r.Value, &cmd); err != nil {
		c.e.logger.Error("skipping unreadable command", "offset", r.Offset, "err", err)
		return nil
	}
	return &cmd
}

func (c *commandLog) apply(ctx context.Context, cmd *command) {
	e := c.e
	if cmd.Seq >= e.seq {
		e.seq = cmd.Seq + 1
	}
	stmts, err := parser.Parse(cmd.SQL, parser.WithTypes(e.cat.Types().Lookup))
	if err != nil || len(stmts) != 1 {
		e.logger.Error("skipping unparsable command", "seq", cmd.Seq, "err", err)
		return
	}
	s := &session{props: e.props.Merge(cmd.Props), vars: map[string]string{}}
	if _, err := e.execLocked(ctx, stmts[0], s, cmd); err != nil {
		e.logger.Error("command failed on replay", "seq", cmd.Seq, "statement", cmd.SQL, "err", err)
		return
	}
	e.logger.Info("replayed command", "seq", cmd.Seq, "queryId", cmd.QueryID)
}

// commitEnds commits the current end offsets of topics for group, so a
// new query reading "latest" starts exactly where the topics are now.
func (k *kafkaCluster) commitEnds(ctx context.Context, group string, topics []string) error {
	// Both the listing and the commit may meet a topic created moments
	// ago (a CREATE STREAM and its CREATE … AS SELECT in one request)
	// that some broker does not know yet.
	return retryUnknownTopic(ctx, func() error {
		ends, err := k.adm.ListEndOffsets(ctx, topics...)
		if err != nil {
			return err
		}
		if err := ends.Error(); err != nil {
			return err
		}
		os := kadm.Offsets{}
		ends.Each(func(o kadm.ListedOffset) {
			os.Add(kadm.Offset{Topic: o.Topic, Partition: o.Partition, At: o.Offset, LeaderEpoch: -1})
		})
		resp, err := k.adm.CommitOffsets(ctx, group, os)
		if err != nil {
			return err
		}
		if err := resp.Error(); err != nil {
			return fmt.Errorf("commit initial offsets: %w", err)
		}
		return nil
	})
}

// retryUnknownTopic retries fn while a just-created topic is not yet known
// to every broker (up to ten seconds).
func retryUnknownTopic(ctx context.Context, fn func() error) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := fn()
		if !errors.Is(err, kerr.UnknownTopicOrPartition) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
