package runtime

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// TestRetryFailingAgainStaysInError: a query whose retry fails again stays
// in ERROR with both errors recorded, and no "illegal transition" is
// logged; a failure after TERMINATE changes nothing and logs no error
// about the state.
func TestRetryFailingAgainStaysInError(t *testing.T) {
	var logs bytes.Buffer
	q := &query{eng: &Engine{logger: slog.New(slog.NewTextHandler(&logs, nil))}, id: "CSAS_X_1"}
	q.setState(StateRunning, nil)
	q.fail(errors.New("broker gone"))
	q.fail(errors.New("broker still gone"))
	if q.State() != StateError || len(q.errs) != 2 {
		t.Fatalf("after two failures: state %s, %d errors; want ERROR with 2", q.State(), len(q.errs))
	}
	q.setState(StateRunning, nil)
	q.setState(StateTerminated, nil)
	q.fail(errors.New("late failure"))
	if q.State() != StateTerminated {
		t.Fatalf("a failure after TERMINATE moved the query to %s", q.State())
	}
	if strings.Contains(logs.String(), "illegal") {
		t.Errorf("logged an illegal transition:\n%s", logs.String())
	}
}

// TestPauseKeepsTheRunnersState: while PAUSED, what the runner reports
// (its tasks restored: RUNNING; a rejoin: PENDING) is kept beneath the
// pause and shown again by RESUME; a fault while paused is ERROR, and
// RESUME leaves it there; pausing twice or resuming a query that is not
// paused changes nothing; a paused query can be terminated.
func TestPauseKeepsTheRunnersState(t *testing.T) {
	var logs bytes.Buffer
	q := &query{eng: &Engine{logger: slog.New(slog.NewTextHandler(&logs, nil))}, id: "CSAS_X_1"}
	step := func(what string, do func(), want QueryState) {
		t.Helper()
		do()
		if got := q.State(); got != want {
			t.Fatalf("%s: %s, want %s", what, got, want)
		}
	}
	step("PAUSE while PENDING", q.pauseRun, StatePaused)
	step("runner running while paused", func() { q.setState(StateRunning, nil) }, StatePaused)
	step("PAUSE again", q.pauseRun, StatePaused)
	step("RESUME", q.resumeRun, StateRunning)
	step("RESUME of a running query", q.resumeRun, StateRunning)
	step("PAUSE while RUNNING", q.pauseRun, StatePaused)
	step("runner rejoining while paused", func() { q.setState(StatePending, nil) }, StatePaused)
	step("RESUME while the runner restores", q.resumeRun, StatePending)
	step("runner running", func() { q.setState(StateRunning, nil) }, StateRunning)
	step("PAUSE", q.pauseRun, StatePaused)
	step("fault while paused", func() { q.fail(errors.New("disk full")) }, StateError)
	step("RESUME of a failed query", q.resumeRun, StateError)
	step("PAUSE of a failed query", q.pauseRun, StatePaused)
	step("TERMINATE of a paused query", func() { q.setState(StateTerminated, nil) }, StateTerminated)
	step("PAUSE after TERMINATE", q.pauseRun, StateTerminated)
	if strings.Contains(logs.String(), "illegal") {
		t.Errorf("logged an illegal transition:\n%s", logs.String())
	}
}
