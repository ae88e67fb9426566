package runtime

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/state"
	"github.com/twmb/franz-go/pkg/kerr"
)

// TestClassify pins the class of the errors a running query meets.
func TestClassify(t *testing.T) {
	user := &physical.UserError{Err: errors.New("bad timestamp"), Remedy: "fix it"}
	for _, tc := range []struct {
		name string
		err  error
		want errorClass
	}{
		{"timeout", fmt.Errorf("commit: %w", kerr.RequestTimedOut), classRetriable},
		{"leader moved", kerr.NotLeaderForPartition, classRetriable},
		{"deadline", context.DeadlineExceeded, classRetriable},
		{"connection refused", &net.OpError{Op: "dial", Err: errors.New("connection refused")}, classRetriable},
		{"new generation", fmt.Errorf("offsets: %w", kerr.IllegalGeneration), classTaskMigrated},
		{"fenced", kerr.ProducerFenced, classTaskMigrated},
		{"zombie epoch", &sessionError{kerr.InvalidProducerEpoch}, classTaskMigrated},
		{"session failed otherwise", &sessionError{errors.New("unrecoverable producer state")}, classTaskMigrated},
		{"corrupt aggregate", &taskFailure{task: taskKey{1, 2}, err: &state.CorruptError{What: "aggregate state"}}, classCorrupted},
		{"pebble checksum", fmt.Errorf("read: %w", pebble.ErrCorruption), classCorrupted},
		{"invalid timestamp", &taskFailure{err: user}, classFatalUser},
		{"no write access", fmt.Errorf("output: %w", kerr.TopicAuthorizationFailed), classFatalUser},
		{"session refused access", &sessionError{kerr.TransactionalIDAuthorizationFailed}, classFatalUser},
		{"record too large", kerr.MessageTooLarge, classFatalUser},
		{"bug", errors.New("index out of range"), classFatalInternal},
	} {
		if got := classify(tc.err); got != tc.want {
			t.Errorf("%s (%v): %s, want %s", tc.name, tc.err, got, tc.want)
		}
	}
}

// TestFailureSaysWhatToDo: the error a query in ERROR shows names the
// class and how to get the query out of ERROR.
func TestFailureSaysWhatToDo(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want []string
	}{
		{&physical.UserError{Err: errors.New("bad timestamp"), Remedy: "fix the timestamp"},
			[]string{"bad timestamp", "fatal user error", "fix the timestamp", "TERMINATE Q_1"}},
		{kerr.TopicAuthorizationFailed, []string{"fatal user error", "ACLs", "TERMINATE Q_1"}},
		{errors.New("index out of range"), []string{"fatal internal error", "bug", "report", "TERMINATE Q_1"}},
		{kerr.RequestTimedOut, []string{"retriable error", "reachable", "TERMINATE Q_1"}},
		{&state.WriteError{Op: "commit app/s/0", Err: syscall.ENOSPC}, []string{"is full", "fatal storage error", "free space", "restarts this query", "no restart of the server"}},
	} {
		got := failure("Q_1", tc.err).Error()
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("failure of %v: %q does not say %q", tc.err, got, w)
			}
		}
	}
	f := failure("Q_1", kerr.RequestTimedOut)
	if failure("Q_1", f) != f || !errors.Is(f, kerr.RequestTimedOut) {
		t.Error("a failure is described once and keeps its cause")
	}
}
