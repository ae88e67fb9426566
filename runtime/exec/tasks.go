package exec

import (
	"errors"
	"sync"

	"github.com/sqlstream/sqlstream/physical"
)

// taskEntry is a running task and its stores.
type taskEntry struct {
	task   *physical.Task
	stores *taskStores
}

// taskSet holds the tasks of one topology on this server, created as
// partitions are assigned (or first seen) and routed to by topic.
type taskSet struct {
	topo   *physical.Topology
	subOf  map[string]int // source topic → sub-topology
	newEnv func(sub *physical.SubTopology, p int32) (*physical.TaskEnv, *taskStores)

	mu     sync.Mutex
	tasks  map[physical.TaskID]*taskEntry
	states map[physical.TaskID]taskState // tasks assigned here and not closed (see taskState)
}

func newTaskSet(topo *physical.Topology, newEnv func(sub *physical.SubTopology, p int32) (*physical.TaskEnv, *taskStores)) *taskSet {
	ts := &taskSet{topo: topo, subOf: map[string]int{}, newEnv: newEnv, tasks: map[physical.TaskID]*taskEntry{}, states: map[physical.TaskID]taskState{}}
	for _, st := range topo.SubTopologies {
		for _, t := range st.Topics {
			ts.subOf[t] = st.ID
		}
	}
	return ts
}

// topics returns every source topic of the topology.
func (ts *taskSet) topics() []string {
	var out []string
	for _, st := range ts.topo.SubTopologies {
		out = append(out, st.Topics...)
	}
	return out
}

// get returns the task for a topic partition, creating it if needed.
func (ts *taskSet) get(topic string, p int32) (*taskEntry, error) {
	return ts.getKey(physical.TaskID{SubTopology: ts.subOf[topic], Partition: p})
}

func (ts *taskSet) getKey(k physical.TaskID) (*taskEntry, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.getKeyLocked(k)
}

func (ts *taskSet) getKeyLocked(k physical.TaskID) (*taskEntry, error) {
	p := k.Partition
	if t := ts.tasks[k]; t != nil {
		return t, nil
	}
	env, stores := ts.newEnv(ts.topo.SubTopologies[k.SubTopology], p)
	task, err := ts.topo.NewTask(k.SubTopology, env)
	if err != nil {
		if stores != nil {
			stores.close()
		}
		return nil, err
	}
	t := &taskEntry{task: task, stores: stores}
	ts.tasks[k] = t
	return t, nil
}

// lookup returns an existing task.
func (ts *taskSet) lookup(topic string, p int32) *taskEntry {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.tasks[physical.TaskID{SubTopology: ts.subOf[topic], Partition: p}]
}

// keyOf is the task of a topic partition.
func (ts *taskSet) keyOf(topic string, p int32) physical.TaskID {
	return physical.TaskID{SubTopology: ts.subOf[topic], Partition: p}
}

// move takes task k to state to, checking the transition; a task not
// assigned here (or closed) can only be created.
func (ts *taskSet) move(k physical.TaskID, to taskState) error {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.moveLocked(k, to)
}

func (ts *taskSet) moveLocked(k physical.TaskID, to taskState) error {
	from, ok := ts.states[k]
	switch {
	case !ok && to == taskCreated:
	case !ok:
		return &errTaskTransition{task: k, from: taskClosed, to: to}
	default:
		if err := checkTaskTransition(k, from, to); err != nil {
			return err
		}
	}
	if to == taskClosed {
		delete(ts.states, k)
	} else {
		ts.states[k] = to
	}
	return nil
}

// state returns task k's state (closed when not assigned here).
func (ts *taskSet) state(k physical.TaskID) taskState {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if s, ok := ts.states[k]; ok {
		return s
	}
	return taskClosed
}

// drop closes the task of a topic partition (revoked or lost).
func (ts *taskSet) drop(topic string, p int32) {
	k := physical.TaskID{SubTopology: ts.subOf[topic], Partition: p}
	ts.mu.Lock()
	t := ts.tasks[k]
	delete(ts.tasks, k)
	if _, ok := ts.states[k]; ok {
		_ = ts.moveLocked(k, taskClosed) // legal from every state
	}
	ts.mu.Unlock()
	if t != nil && t.stores != nil {
		t.stores.close()
	}
}

// all returns the current tasks.
func (ts *taskSet) all() []*taskEntry {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	out := make([]*taskEntry, 0, len(ts.tasks))
	for _, t := range ts.tasks {
		out = append(out, t)
	}
	return out
}

// closeAll closes every task's stores.
func (ts *taskSet) closeAll() {
	for _, t := range ts.all() {
		if t.stores != nil {
			t.stores.close()
		}
	}
	ts.mu.Lock()
	ts.tasks = map[physical.TaskID]*taskEntry{}
	ts.states = map[physical.TaskID]taskState{} // every task closed
	ts.mu.Unlock()
}

// rebuild replaces every task by a new one over its stores as committed
// (an aborted transaction: the stores drop their pending writes as they
// close, and the new operators start from committed state). Each task is
// suspended meanwhile and running again after.
func (ts *taskSet) rebuild() error {
	ts.mu.Lock()
	old := ts.tasks
	ts.tasks = map[physical.TaskID]*taskEntry{}
	var err error
	for k := range old {
		err = errors.Join(err, ts.moveLocked(k, taskSuspended))
	}
	ts.mu.Unlock()
	if err != nil {
		return err
	}
	for _, t := range old {
		if t.stores != nil {
			t.stores.close()
		}
	}
	for k := range old {
		if _, err := ts.getKey(k); err != nil {
			return errors.Join(err, ts.move(k, taskError))
		}
		if err := ts.move(k, taskRunning); err != nil {
			return err
		}
	}
	return nil
}

// keys returns the keys of the current tasks.
func (ts *taskSet) keys() []physical.TaskID {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	out := make([]physical.TaskID, 0, len(ts.tasks))
	for k := range ts.tasks {
		out = append(out, k)
	}
	return out
}
