package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime/commandlog"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/naming"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/parser"
)

// The engine's side of the command topic (package commandlog): which
// statements it records, how an accepted command runs, and the waits of
// requests for a command's sequence number.

// command is one accepted statement (commandlog.Command).
type command = commandlog.Command

// seqWaitTimeout bounds how long a request with commandSequenceNumber
// waits for the command log to reach it.
const seqWaitTimeout = 5 * time.Second

// openCommandLog creates the command topic if needed and opens it (dir
// is the data directory, where the key lives).
func openCommandLog(ctx context.Context, e *Engine, kc *exec.Kafka, topic, dir string) (*commandlog.Log, error) {
	err := e.cluster.CreateTopic(ctx, exec.TopicSpec{Name: topic, Partitions: 1, Replicas: 1,
		Configs: map[string]string{"retention.ms": "-1", "cleanup.policy": "delete"}})
	if err != nil {
		return nil, fmt.Errorf("command topic: %w", err)
	}
	cfg := commandlog.Config{Topic: topic, ServiceID: e.opts.serviceID, Dir: dir, Secret: e.cfg.CommandSecret,
		ReplayTimeout: e.cfg.CommandReplayTimeout, Logger: e.logger}
	return commandlog.Open(ctx, cfg, commandBroker{kc}, commandApplier{e})
}

// recordsCommand reports whether stmt may append to the command topic.
func recordsCommand(stmt ast.Statement) bool {
	switch stmt.(type) {
	case *ast.CreateSource, *ast.CreateAsSelect, *ast.InsertInto, *ast.Drop,
		*ast.CreateType, *ast.DropType, *ast.Terminate, *ast.Pause, *ast.Resume, *ast.AlterSource:
		return true
	}
	return false
}

// execSerialized runs a command-recording statement posted to this
// server through the log's serialized append. e.mu is held.
func (e *Engine) execSerialized(ctx context.Context, stmt ast.Statement, s *session) (api.Entity, error) {
	var ent api.Entity
	err := e.cmdLog.Serialized(ctx, func(ctx context.Context) (err error) {
		ent, err = e.dispatchLocked(ctx, stmt, s, nil)
		return err
	})
	if errors.Is(err, commandlog.ErrFenced) {
		return nil, err
	}
	return ent, err
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
		reached, ch := e.seq > seq, e.cmdLog.Applied()
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

// commandApplier is the engine as the command log sees it.
type commandApplier struct{ e *Engine }

var _ commandlog.Engine = commandApplier{}

func (a commandApplier) Lock()   { a.e.mu.Lock() }
func (a commandApplier) Unlock() { a.e.unlock() }

// Apply runs an accepted command of the topic; one that fails (e.g. its
// topic was deleted outside sqlstream) is logged and skipped.
func (a commandApplier) Apply(ctx context.Context, cmd *command) {
	e := a.e
	if cmd.Seq >= e.seq {
		e.seq = cmd.Seq + 1
	}
	stmts, err := parser.Parse(cmd.SQL, parser.WithTypes(e.cat.Types().Lookup))
	if err != nil || len(stmts) != 1 {
		e.logger.Error("skipping unparsable command", "seq", cmd.Seq, "err", err)
		return
	}
	naming.DropRecordedQueryID(stmts[0])
	s, err := e.session(e.props.Merge(cmd.Props), map[string]string{})
	if err == nil {
		_, err = e.execLocked(ctx, stmts[0], s, cmd)
	}
	if err != nil {
		e.logger.Error("command failed on replay", "seq", cmd.Seq, "statement", cmd.SQL, "err", err)
		return
	}
	e.logger.Info("replayed command", "seq", cmd.Seq, "queryId", cmd.QueryID)
}

// commandBroker is the Kafka cluster as the command log sees it: the
// executor's client factory and reads, the offset range retried while a
// topic created moments ago is not known to every broker.
type commandBroker struct{ *exec.Kafka }

var _ commandlog.Broker = commandBroker{}

func (b commandBroker) OffsetRange(ctx context.Context, topic string) (starts, ends map[int32]int64, err error) {
	err = exec.RetryUnknownTopic(ctx, func() (err error) {
		starts, ends, err = b.Kafka.OffsetRange(ctx, topic)
		return err
	})
	return starts, ends, err
}
