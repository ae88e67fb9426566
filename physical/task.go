package physical

import (
	"fmt"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"
	"strings"

	"github.com/sqlstream/sqlstream/sql/types"
)

// TaskID identifies a task: a sub-topology and the partition it owns.
type TaskID struct {
	SubTopology int
	Partition   int32
}

// String renders the id as Kafka Streams does: "0_3".
func (id TaskID) String() string { return fmt.Sprintf("%d_%d", id.SubTopology, id.Partition) }

// Task is one instance of a sub-topology for one input partition. It is
// not safe for concurrent use: the runtime drives each task from one
// goroutine at a time.
type Task struct {
	ID   TaskID
	env  *TaskEnv
	head rawProcessor
	// counts are the source nodes' record counters (TaskEnv.Counts; nil:
	// not counted).
	counts []sourceCount
}

// NewTask instantiates the processors of sub-topology sub for partition p.
func (t *Topology) NewTask(sub int, env *TaskEnv) (*Task, error) {
	st := t.SubTopologies[sub]
	env.sub = sub
	head, err := st.build(env)
	if err != nil {
		return nil, err
	}
	task := &Task{ID: TaskID{SubTopology: sub, Partition: env.Partition}, env: env, head: head}
	if env.Counts != nil {
		task.counts = env.Counts.sources(sub)
	}
	return task, nil
}

// Process runs one input record through the task. The returned error is
// fatal for the task (a stopped transient query, see IsStopped); bad
// records are logged to the processing log, not returned. A panic in an
// operator (a bug) is recovered, so one record cannot take the server
// down, and returned as a *PanicError: the query cannot go on (the
// runtime puts it in ERROR) rather than skip the record as bad data. The
// processing log gets the record with the panic's whole stack.
func (t *Task) Process(r *InRecord) (err error) {
	defer func() {
		if p := recover(); p != nil {
			pe := newPanicError(p, r)
			t.env.current = r
			t.env.log(ExpressionError, "value", fmt.Sprintf("internal error processing record: %v\n%s", p, pe.Stack), r.Value)
			err = pe
		}
	}()
	if t.counts != nil {
		countInput(t.counts, r)
	}
	return t.head.ProcessRaw(r)
}

// PanicError is an operator's panic while processing a record: a bug of
// sqlstream, fatal for the query.
type PanicError struct {
	Value any    // what the operator panicked with
	Frame string // the function that panicked, file:line
	Stack []byte // the goroutine's stack at the panic
	// Topic, Partition and Offset are the record's.
	Topic     string
	Partition int32
	Offset    int64
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("internal error: an operator panicked processing %s[%d] offset %d: %v at %s",
		e.Topic, e.Partition, e.Offset, e.Value, e.Frame)
}

// newPanicError describes the panic p the deferred recover of Process
// caught: its frame is the first of the stack below the runtime's own
// panic machinery.
func newPanicError(p any, r *InRecord) *PanicError {
	pe := &PanicError{Value: p, Stack: debug.Stack(), Frame: "unknown", Topic: r.Topic, Partition: r.Partition, Offset: r.Offset}
	pcs := make([]uintptr, 32)
	frames := goruntime.CallersFrames(pcs[:goruntime.Callers(3, pcs)])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, "runtime.") {
			pe.Frame = fmt.Sprintf("%s (%s:%d)", f.Function, filepath.Base(f.File), f.Line)
			break
		}
		if !more {
			break
		}
	}
	return pe
}

// ProcessRow runs a row that is already decoded (a pull query's table
// row) through the task's processors after its source.
func (t *Task) ProcessRow(row *types.Row) error {
	src, ok := t.head.(*sourceOp)
	if !ok {
		return fmt.Errorf("task %s does not start at a source", t.ID)
	}
	return src.next.Process(row)
}

// Punctuate lets the task's operators act on the wall-clock time now
// (epoch millis): windowed aggregations with window.close.idle.ms close
// the windows of a quiet partition. The runtime calls it from the
// goroutine that drives the task, between records.
func (t *Task) Punctuate(now int64) error {
	for _, fn := range t.env.punctuators {
		if err := fn(now); err != nil {
			return err
		}
	}
	return nil
}
