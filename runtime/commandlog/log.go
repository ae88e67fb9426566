package commandlog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Command is one accepted statement in the command topic. Replaying the
// topic in order rebuilds the catalog and restarts persistent queries
// with the same ids (and so the same consumer groups and offsets).
type Command struct {
	Seq     int64             `json:"seq"`
	SQL     string            `json:"statement"`
	Props   map[string]string `json:"streamsProperties,omitempty"`
	QueryID string            `json:"queryId,omitempty"`
	// AppPrefix is what the application ids of the queries this command
	// starts begin with (the engine's prefix when it was recorded); empty
	// in commands recorded before it was.
	AppPrefix string `json:"appIdPrefix,omitempty"`
	// InternalFormats says in which formats the queries this command
	// starts write their internal topics ("sources": their sources'
	// formats; "sources/2": also a registry-keyed right table of a
	// foreign-key join reformatted; "sources/3": also stream–stream join
	// stores numbered as ksqlDB numbers them); empty in commands recorded
	// before it was (JSON).
	InternalFormats string `json:"internalFormats,omitempty"`
	// StoreFormats says in which formats the queries this command starts
	// write their aggregate and join table stores' values ("query": the
	// query's value formats, accumulators named after their calls;
	// "query/2": also the aggregate stores' keys in the query's key
	// format, the EMIT FINAL buffer's and sliding windows' raw rows in
	// its value format, as-of joins' stores in their sides' formats, a
	// table aggregation's input rows in its source's formats; "query/3":
	// also the changelogs of stores keeping a timestamp before their
	// values carry the value alone, the timestamp as the record's); empty in
	// commands recorded before it was (JSON,
	// accumulators by position).
	StoreFormats string `json:"storeFormats,omitempty"`
}

// Engine is what the log applies accepted commands to. Lock and Unlock
// are the engine's lock: the log holds it while it applies commands, and
// the engine holds it around every call of Append, Serialized, Replay
// and Applied.
type Engine interface {
	Lock()
	Unlock()
	// Apply runs one accepted command (the lock is held). A command that
	// fails is the engine's to log; the log goes on with the next.
	Apply(ctx context.Context, cmd *Command)
}

// Broker is what the log needs of Kafka. The topic exists (the engine
// creates it, one partition, infinite retention, before Open).
type Broker interface {
	// Client is a new client of the cluster with opts added.
	Client(opts ...kgo.Opt) (*kgo.Client, error)
	// OffsetRange is the start and end offsets of topic's partitions,
	// retried while a topic created moments ago is not known to every
	// broker yet.
	OffsetRange(ctx context.Context, topic string) (starts, ends map[int32]int64, err error)
	// EndOffset is the end offset of one partition.
	EndOffset(ctx context.Context, topic string, p int32) (int64, error)
	// ReadRange reads [from, end) of one partition, read_committed.
	ReadRange(ctx context.Context, topic string, p int32, from, end int64, fn func(*kgo.Record) error) error
	Admin() *kadm.Client
}

// Config is what Open needs to know.
type Config struct {
	Topic     string // _<service id>_command_topic
	ServiceID string // the transactional id of the fencing producer
	// Dir is the data directory: the key file and the fence live there,
	// beside the state directory (state lost and rebuilt from changelogs
	// must not lose the key).
	Dir    string
	Secret string // props.CommandSecret ("" for the key file)
	// ReplayTimeout bounds the read of the topic at the start.
	ReplayTimeout time.Duration
	Logger        *slog.Logger
}

// Log is the command topic `_<service-id>_command_topic`: one partition,
// infinite retention.
//
// Every server of the service id follows it (see follow.go); what runs
// is decided by the signed chain (chain.go).
type Log struct {
	eng       Engine
	broker    Broker
	topic     string
	serviceID string
	log       *slog.Logger
	signer    *commandSigner
	timeout   time.Duration // bounds the read of the topic at the start
	pending   []*physical.InRecord

	// Under the engine lock:
	next    int64         // offset of the next record to apply
	fence   int64         // signatures are required from here (see commandSigner.fence)
	chain   commandChain  // what was accepted so far
	txn     *commandTxn   // the serialized append in progress, if any
	applied chan struct{} // closed (and replaced) when commands were applied

	stopFollow context.CancelFunc
	followDone chan struct{}
}

// Open reads the command topic and loads the key to verify it with: a
// key file is never made over a topic that holds signed records. The
// records are applied by Replay.
func Open(ctx context.Context, cfg Config, b Broker, eng Engine) (*Log, error) {
	c := &Log{eng: eng, broker: b, topic: cfg.Topic, serviceID: cfg.ServiceID, log: cfg.Logger,
		applied: make(chan struct{}), timeout: cfg.ReplayTimeout}
	var err error
	if c.pending, err = c.records(ctx); err != nil {
		return nil, fmt.Errorf("command topic: %w", err)
	}
	c.signer, err = loadCommandSigner(cfg.Dir, cfg.Secret, anySigned(c.pending))
	if errors.Is(err, errNoKey) {
		return nil, c.noKeyError(err)
	}
	return c, err
}

// Topic is the command topic's name.
func (c *Log) Topic() string { return c.topic }

// Admin is the admin client of the log's broker.
func (c *Log) Admin() *kadm.Client { return c.broker.Admin() }

// Key is the key that signs the log's records (the inter-node requests
// of the service id are signed with a key derived from it).
func (c *Log) Key() []byte { return c.signer.key }

// noKeyError says what to do about a signed topic this server has no key
// for.
func (c *Log) noKeyError(err error) error {
	return fmt.Errorf("command topic %s holds signed commands, but %w. If this server is one of several of service id %q, "+
		"set %s in every server's config file to one shared secret (README: several servers); if its data directory was "+
		"lost or wiped, restore %s from a backup. The server does not start: a new key would not verify these commands",
		c.topic, err, c.serviceID, props.CommandSecret, keyFile)
}

// unverifiableError says what to do about a topic whose signed records
// were all written with another key.
func (c *Log) unverifiableError(signed int) error {
	return fmt.Errorf("%s holds %d signed records and none verifies with this server's key (%s): the servers that wrote them "+
		"have another key. Set %s to the secret the servers of service id %q use (README: several servers), or restore the %s "+
		"they were signed with. The server does not start rather than run without their streams and queries and sign a second history",
		c.topic, signed, c.signer.source, props.CommandSecret, c.serviceID, keyFile)
}

// Append writes cmd through the serialized append in progress (see
// Serialized), chained after the head, and moves next and the head past
// it: this server applies its own command itself. The engine lock is
// held.
func (c *Log) Append(ctx context.Context, cmd *Command) error {
	b, err := json.Marshal(cmd)
	if err != nil {
		return err
	}
	return c.appendRecord(ctx, &physical.OutRecord{Topic: c.topic, Partition: 0,
		Key: []byte(strconv.FormatInt(cmd.Seq, 10)), Value: b, Timestamp: time.Now().UnixMilli()})
}

func (c *Log) appendRecord(ctx context.Context, r *physical.OutRecord) error {
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

// Replay re-executes every command of the topic that the chain accepts
// and starts the chain if the topic has none yet. A command that fails
// on replay (e.g. its topic was deleted outside sqlstream) is logged and
// skipped; the server still starts. A topic whose signed records are all
// another key's is an error: the server must not start empty beside the
// servers that wrote them.
func (c *Log) Replay(ctx context.Context) error {
	c.eng.Lock()
	defer c.eng.Unlock()
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
	fence, err := c.signer.fence(recs, c.log)
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
// saved once the chain start is in the topic. The engine lock is held.
func (c *Log) startChain(ctx context.Context) error {
	var err error
	for attempt := 0; attempt < MaxAppendAttempts; attempt++ {
		if err = c.tryStartChain(ctx); !errors.Is(err, ErrFenced) {
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

func (c *Log) tryStartChain(ctx context.Context) error {
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
	// The key file is written before the first signed record, so that
	// no record is ever signed with a key that is not kept (see save).
	if err := c.signer.save(); err != nil {
		return fmt.Errorf("command topic key: %w", err)
	}
	if !c.chain.started {
		if err := c.appendRecord(ctx, chainStartRecord(c.topic)); err != nil {
			return err
		}
		c.log.Info("started the signed command chain", "topic", c.topic, "offset", c.next-1, "key", c.signer.source)
	}
	return nil
}

// records reads the whole command topic, read_committed, up to its end
// at the start of the read: an empty fetch once the last stable offset
// has reached that end ends it (a torn tail the broker truncated leaves
// no record at the end offset). The read is bounded by c.timeout.
func (c *Log) records(ctx context.Context) ([]*physical.InRecord, error) {
	starts, ends, err := c.broker.OffsetRange(ctx, c.topic)
	start, end := starts[0], ends[0]
	if err != nil || end <= start {
		return nil, err
	}
	rctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var recs []*physical.InRecord
	err = c.broker.ReadRange(rctx, c.topic, 0, start, end, func(r *kgo.Record) error {
		recs = append(recs, fromKgo(r))
		return nil
	})
	if err != nil && ctx.Err() == nil && rctx.Err() != nil {
		return nil, c.stuckError(ctx, end, recs)
	}
	return recs, err
}

// stuckError is a read of the topic that did not reach end in time.
func (c *Log) stuckError(ctx context.Context, end int64, recs []*physical.InRecord) error {
	at := "none"
	if len(recs) > 0 {
		at = strconv.FormatInt(recs[len(recs)-1].Offset, 10)
	}
	lso := "unknown"
	if o, err := c.broker.Admin().ListCommittedOffsets(ctx, c.topic); err == nil {
		if l, ok := o.Lookup(c.topic, 0); ok && l.Err == nil {
			lso = strconv.FormatInt(l.Offset, 10)
		}
	}
	return fmt.Errorf("the read of %s did not reach its end offset %d within %v (last record read: %s, last stable offset: %s). "+
		"A transaction left open in the topic holds read_committed readers back until the broker aborts it (its producer's "+
		"transaction.timeout.ms); start again after that, or raise %s", c.topic, end, c.timeout, at, lso, props.CommandReplayTimeout)
}

// accept checks r against the chain and decodes it: nil when it must not
// run (logged). The engine lock is held.
func (c *Log) accept(r *physical.InRecord) *Command {
	v, err := c.chain.check(c.signer, r, c.fence)
	switch {
	case err != nil:
		c.log.Error("rejecting a command record: it is not executed",
			"topic", c.topic, "offset", r.Offset, "key", string(r.Key), "reason", err)
		return nil
	case v == chainStarted:
		return nil
	case v == unsignedLegacy:
		c.log.Warn("running an unsigned command that predates command signing", "offset", r.Offset)
	case v == signedLegacy:
		c.log.Info("running a command of the earlier record format (before the command chain)", "offset", r.Offset)
	}
	var cmd Command
	if err := json.Unmarshal(r.Value, &cmd); err != nil {
		c.log.Error("skipping unreadable command", "offset", r.Offset, "err", err)
		return nil
	}
	return &cmd
}
