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
)

// command is one accepted statement in the command topic. Replaying the
// topic in order rebuilds the catalog and restarts persistent queries
// with the same ids (and so the same consumer groups and offsets).
type command struct {
	Seq     int64             `json:"seq"`
	SQL     string            `json:"statement"`
	Props   map[string]string `json:"streamsProperties,omitempty"`
	QueryID string            `json:"queryId,omitempty"`
}

// commandLog is the command topic `_<service-id>_command_topic`: one
// partition, infinite retention.
//
// Every server of the service id follows it (see command_follower.go).
type commandLog struct {
	e      *Engine
	kc     *kafkaCluster
	topic  string
	signer *commandSigner

	// Under e.mu:
	next    int64         // offset of the next record to apply
	fence   int64         // signatures are required from here (see commandSigner.fence)
	txn     *commandTxn   // the serialized append in progress, if any
	applied chan struct{} // closed (and replaced) when commands were applied

	stopFollow context.CancelFunc
	followDone chan struct{}
}

func newCommandLog(e *Engine, kc *kafkaCluster, topic string, signer *commandSigner) *commandLog {
	return &commandLog{e: e, kc: kc, topic: topic, signer: signer, applied: make(chan struct{})}
}

// append writes cmd through the serialized append in progress (see
// execSerialized) and moves next past it: this server applies its own
// command itself. e.mu is held.
func (c *commandLog) append(ctx context.Context, cmd *command) error {
	if c.txn == nil {
		return errors.New("command append outside a serialized append")
	}
	b, err := json.Marshal(cmd)
	if err != nil {
		return err
	}
	r := &physical.OutRecord{Topic: c.topic, Partition: 0,
		Key: []byte(strconv.FormatInt(cmd.Seq, 10)), Value: b, Timestamp: nowMillis()}
	c.signer.sign(r)
	off, err := c.appendTxn(ctx, r)
	if err != nil {
		return err
	}
	c.next = off + 1
	return nil
}

// replay creates the topic if needed and re-executes every command in it
// that the engine wrote (see commandSigner). A command that fails on
// replay (e.g. its topic was deleted outside sqlstream) is logged and
// skipped; the server still starts.
func (c *commandLog) replay(ctx context.Context) error {
	err := c.e.cluster.createTopic(ctx, topicSpec{name: c.topic, partitions: 1, replicas: 1,
		configs: map[string]string{"retention.ms": "-1", "cleanup.policy": "delete"}})
	if err != nil {
		return err
	}
	recs, err := c.records(ctx)
	if err != nil {
		return err
	}
	fence, err := c.signer.fence(recs, c.e.logger)
	if err != nil {
		return fmt.Errorf("command topic signing marker: %w", err)
	}
	c.e.mu.Lock()
	defer c.e.unlock()
	c.fence = fence
	c.applyRecords(ctx, recs)
	return nil
}

// records reads the whole command topic.
func (c *commandLog) records(ctx context.Context) ([]*physical.InRecord, error) {
	var recs []*physical.InRecord
	err := c.e.cluster.read(ctx, c.topic, true, true, func(r *physical.InRecord) bool {
		cp := *r
		cp.Key, cp.Value = append([]byte(nil), r.Key...), append([]byte(nil), r.Value...)
		cp.Headers = append([]physical.Header(nil), r.Headers...)
		recs = append(recs, &cp)
		return true
	})
	return recs, err
}

// verified decodes the records the engine wrote; the others are logged
// and skipped.
func (c *commandLog) verified(recs []*physical.InRecord, fence int64) []*command {
	var cmds []*command
	for _, r := range recs {
		if err := c.signer.verify(r, fence); err != nil {
			c.e.logger.Error("rejecting a command record the engine did not write; it is not executed",
				"topic", c.topic, "offset", r.Offset, "reason", err)
			continue
		}
		if r.Offset < fence {
			c.e.logger.Warn("running an unsigned command that predates command signing", "offset", r.Offset)
		}
		var cmd command
		if err := json.Unmarshal(r.Value, &cmd); err != nil {
			c.e.logger.Error("skipping unreadable command", "offset", r.Offset, "err", err)
			continue
		}
		cmds = append(cmds, &cmd)
	}
	return cmds
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
