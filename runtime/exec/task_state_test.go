package exec

import (
	"errors"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
)

// TestTaskLifecycle walks a task through every legal transition of its
// state machine and checks that the illegal ones are refused with an
// *errTaskTransition.
func TestTaskLifecycle(t *testing.T) {
	ts := newTaskSet(&physical.Topology{}, nil)
	k := physical.TaskID{SubTopology: 0, Partition: 3}
	legal := []taskState{taskCreated, taskRestoring, taskRunning, taskSuspended, taskRunning, taskSuspended, taskError, taskClosed,
		taskCreated, taskClosed, taskCreated, taskRestoring, taskError, taskClosed}
	for i, to := range legal {
		if err := ts.move(k, to); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got := ts.state(k); got != to {
			t.Fatalf("step %d: state %s, want %s", i, got, to)
		}
	}
	for _, c := range []struct {
		path []taskState // legal moves from closed, then the illegal one
		bad  taskState
	}{
		{nil, taskRunning},                                       // not created
		{[]taskState{taskCreated}, taskRunning},                  // not restored
		{[]taskState{taskCreated}, taskCreated},                  // created twice
		{[]taskState{taskCreated, taskRestoring}, taskSuspended}, // suspended before running
		{[]taskState{taskCreated, taskRestoring, taskRunning}, taskRestoring},
		{[]taskState{taskCreated, taskRestoring, taskError}, taskRunning}, // error only closes
	} {
		for _, to := range c.path {
			if err := ts.move(k, to); err != nil {
				t.Fatal(err)
			}
		}
		var te *errTaskTransition
		if err := ts.move(k, c.bad); !errors.As(err, &te) {
			t.Errorf("after %v: move to %s = %v, want an illegal transition", c.path, c.bad, err)
		}
		if err := ts.move(k, taskClosed); c.path != nil && err != nil {
			t.Fatal(err)
		}
	}
}
