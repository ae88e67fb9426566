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
