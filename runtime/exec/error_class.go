package exec

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/state"
	"github.com/twmb/franz-go/pkg/kerr"
)

// errorClass sorts the errors a running query meets; each class has one
// handling path, the same in both runners (recoverFrom):
//
//	retriable      the cluster failed for a while (a timeout, a lost
//	               connection, a leader moving): redo the work since the
//	               last commit, on a new session or client.
//	task migrated  the member lost its partitions or was fenced (a new
//	               generation, a zombie's transactional id): drop every
//	               task, rejoin with a new session or client, restore.
//	corrupted      a task's local state cannot be read: wipe its stores,
//	               rejoin, restore them from their changelogs.
//	fatal user     the query as defined cannot go on (an invalid
//	               timestamp it must throw on, a topic it may not write, a
//	               record too large): ERROR, saying why and what to do.
//	fatal storage  the data directory's disk refused a write (full): the
//	               state DB fails every write from then on
//	               (state.WriteError); ERROR, saying to free space.
//	fatal internal anything else, a bug: ERROR, saying so.
//
// The first three are bounded: past maxRecoveries in a row without a
// commit the query goes to ERROR as well.
type errorClass uint8

const (
	classRetriable errorClass = iota
	classTaskMigrated
	classCorrupted
	classFatalUser
	classFatalStorage
	classFatalInternal
)

func (c errorClass) String() string {
	return [...]string{"retriable", "task migrated", "corrupted", "fatal user", "fatal storage", "fatal internal"}[c]
}

// fatal reports whether the class ends the query.
func (c errorClass) fatal() bool { return c >= classFatalUser }

// maxRecoveries is how many recoveries in a row (no commit between them)
// a query gets before it goes to ERROR.
const maxRecoveries = 5

// sessionError is an error of the transactional session itself (Begin,
// End): whatever its cause, the session is done for, the task migrated
// path's business, unless the cause is the user's to fix.
type sessionError struct{ err error }

func (e *sessionError) Error() string { return e.err.Error() }
func (e *sessionError) Unwrap() error { return e.err }

// taskFailure is an error of one task, which a corrupted store is wiped
// for.
type taskFailure struct {
	task physical.TaskID
	err  error
}

func (e *taskFailure) Error() string { return e.err.Error() }
func (e *taskFailure) Unwrap() error { return e.err }

// userKafkaError reports a broker answer that means the query, as
// defined, cannot write or read: configuration and permissions, not
// faults that go away.
func userKafkaError(err error) bool {
	return isAny(err, kerr.TopicAuthorizationFailed, kerr.GroupAuthorizationFailed, kerr.ClusterAuthorizationFailed,
		kerr.TransactionalIDAuthorizationFailed, kerr.MessageTooLarge, kerr.RecordListTooLarge,
		kerr.InvalidRecord, kerr.InvalidTopicException, kerr.PolicyViolation, kerr.InvalidRequiredAcks)
}

// migratedKafkaError reports a broker answer that means the member no
// longer owns its partitions or its transactional id.
func migratedKafkaError(err error) bool {
	return isAny(err, kerr.IllegalGeneration, kerr.UnknownMemberID, kerr.RebalanceInProgress, kerr.FencedInstanceID,
		kerr.ProducerFenced, kerr.InvalidProducerEpoch, kerr.InvalidProducerIDMapping, kerr.StaleMemberEpoch)
}

// classify sorts err (see errorClass).
func classify(err error) errorClass {
	var ue *physical.UserError
	var ne net.Error
	switch {
	case errors.As(err, &ue) || userKafkaError(err):
		return classFatalUser
	case state.IsWriteFailure(err):
		return classFatalStorage
	case state.IsCorrupt(err):
		return classCorrupted
	case migratedKafkaError(err):
		return classTaskMigrated
	case kerr.IsRetriable(err) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) || registryUnavailable(err):
		return classRetriable
	}
	var se *sessionError
	if errors.As(err, &se) {
		return classTaskMigrated
	}
	return classFatalInternal
}

// registryUnavailable reports a record a registry format could not decode
// because the schema registry did not answer: retried, never skipped.
func registryUnavailable(err error) bool {
	var ru *format.RegistryUnavailableError
	return errors.As(err, &ru)
}

func isAny(err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}

// queryFailure is the error a query in ERROR shows: what happened, its
// class and what the user can do to get the query out of ERROR.
type queryFailure struct {
	class  errorClass
	err    error
	remedy string
}

func (e *queryFailure) Error() string {
	return fmt.Sprintf("%v (%s error; %s)", e.err, e.class, e.remedy)
}

func (e *queryFailure) Unwrap() error { return e.err }

// failure describes a fatal error of persistent query id, or of a
// recoverable one that kept coming back.
func failure(id string, err error) *queryFailure {
	return classified(err, fmt.Sprintf("to run it again, TERMINATE %s and run its CREATE statement again", id))
}

// pushFailure describes an error that ended a push query: the same
// classes and remedies as a persistent query's, the query being run again
// by sending it again.
func pushFailure(err error) *queryFailure {
	return classified(err, "to run it again, send the query again")
}

// classified is err with its class and the remedy that ends with retry.
func classified(err error, retry string) *queryFailure {
	var qf *queryFailure
	if errors.As(err, &qf) {
		return qf
	}
	c := classify(err)
	f := &queryFailure{class: c, err: err}
	var ue *physical.UserError
	switch {
	case errors.As(err, &ue):
		f.remedy = ue.Remedy + "; then " + retry
	case c == classFatalUser:
		f.remedy = "the broker refused the query's records: check the topics' ACLs and max.message.bytes; then " + retry
	case c == classFatalStorage:
		f.remedy = "free space on the disk of the server's data directory: the server probes it, and once it takes writes again reopens local state and restarts this query, which restores what is behind from its changelogs and goes on from its committed offsets (no restart of the server needed)"
	case c == classFatalInternal:
		f.remedy = "this is a bug of sqlstream, please report it with the server log; " + retry
	default:
		f.remedy = "the query could not recover from it (at most " + fmt.Sprint(maxRecoveries) +
			" recoveries in a row): check that the Kafka cluster is reachable and healthy; then " + retry
	}
	return f
}

// recoverFrom takes a runner error down its class's path: nil when the
// runner recovered and goes on, else the failure the query goes to ERROR
// with.
func (r *kafkaRunner) recoverFrom(ctx context.Context, err error) error {
	c := classify(err)
	if c.fatal() || ctx.Err() != nil {
		return failure(r.q.ID, err)
	}
	r.recoveries++
	if r.recoveries > maxRecoveries {
		return failure(r.q.ID, err)
	}
	r.q.Logger.Warn("query error; recovering", "query", r.q.ID, "class", c.String(), "err", err)
	r.q.Observer.Recovered(fmt.Errorf("%w (%s error; recovered by rejoining%s)", err, c, wipeNote(c)))
	var wipe []physical.TaskID
	var tf *taskFailure
	if c == classCorrupted && errors.As(err, &tf) {
		wipe = append(wipe, tf.task)
	}
	return r.rejoin(ctx, wipe)
}

func wipeNote(c errorClass) string {
	if c == classCorrupted {
		return ", the task's local state wiped and restored from its changelogs"
	}
	return ""
}

// rejoin drops every task and the session or client, wipes the stores of
// the tasks in wipe, and joins the group again: the new assignment
// restores the tasks and consumes from the committed offsets.
func (r *kafkaRunner) rejoin(ctx context.Context, wipe []physical.TaskID) error {
	if r.eos != nil {
		r.abortFailed() // its work is redone from the committed offsets
		r.takeEmitErr() // the failed records go with the old session
		r.eos.sess.CloseAllowingRebalance()
	} else {
		r.cl.CloseAllowingRebalance()
	}
	r.cancelRestores(nil, nil)
	r.tasks.closeAll()
	r.groups.reset()
	r.mu.Lock()
	r.processed, r.committed, r.inputs = map[tp]int64{}, map[tp]int64{}, map[tp]*inputPosition{}
	r.emitErr = nil
	r.mu.Unlock()
	if err := r.wipeTasks(wipe); err != nil {
		return failure(r.q.ID, err)
	}
	if r.eos != nil {
		return r.newSession(ctx)
	}
	return r.newClient()
}

// wipeTasks drops the local state of every store of the tasks.
func (r *kafkaRunner) wipeTasks(tasks []physical.TaskID) error {
	for _, k := range tasks {
		for _, spec := range r.q.Topology.SubTopologies[k.SubTopology].Stores {
			id := state.StoreID{App: r.q.AppID, Name: spec.Name, Partition: k.Partition}
			if err := r.q.DB.Wipe(id); err != nil {
				return fmt.Errorf("wiping corrupt %s: %w", id, err)
			}
			r.q.Logger.Warn("wiped corrupt local state; it is restored from its changelog", "query", r.q.ID, "store", id.String())
		}
	}
	return nil
}

// IsUserFault reports whether err is the user's to fix (a fatal user
// error: ksqlDB's QueryError type USER).
func IsUserFault(err error) bool { return classify(err) == classFatalUser }

// IsRetriable reports whether a runner retries err (the cluster failed
// for a while).
func IsRetriable(err error) bool { return classify(err) == classRetriable }

// IsStorageFault reports whether err is the data directory's disk
// refusing a write (a fatal storage error, which the engine's storage
// recovery undoes).
func IsStorageFault(err error) bool { return classify(err) == classFatalStorage }

// Failure is the error persistent query id shows in ERROR after err: err
// with its class and what to do, as every runner reports it.
func Failure(id string, err error) error { return failure(id, err) }
