package physical

import (
	"sync/atomic"

	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// Processor is one operator instance in a task. Process handles one row
// and passes results to its successor; it must not keep row after
// returning unless it copies it.
type Processor interface {
	Process(row *types.Row) error
}

// Every operator is a Processor (checked at compile time).
var (
	_ Processor = (*filterOp)(nil)
	_ Processor = (*projectOp)(nil)
	_ Processor = (*partitionByOp)(nil)
	_ Processor = (*groupByOp)(nil)
	_ Processor = (*repartitionSink)(nil)
	_ Processor = (*aggregateOp)(nil)
	_ Processor = (*windowAggOp)(nil)
	_ Processor = (*slidingOp)(nil)
	_ Processor = (*materializeOp)(nil)
	_ Processor = (*sinkOp)(nil)
	_ Processor = (*collectOp)(nil)
)

// RowSink receives the rows of a transient (push) query.
type RowSink interface {
	// Row is called for each result row; returning false stops the query.
	Row(row *types.Row) bool
}

// TaskEnv is what a task's processors may use: where outputs and
// processing-log entries go, and which partition the task owns.
type TaskEnv struct {
	Partition int32
	Emit      Emitter
	Log       ProcessingLog
	// Rows receives the results of a transient query (nil for persistent
	// queries, whose results go to a sink topic through Emit).
	Rows RowSink
	// Stores opens the task's state stores (nil for stateless tasks).
	Stores StoreProvider
	// Globals gives the query's global stores (joins with a GLOBAL table).
	Globals GlobalStores
	// LateTopic receives records dropped for arriving after their window
	// closed (the query's late.records.topic; "" for none).
	LateTopic string
	// ThrowOnInvalidTimestamp is ksql.timestamp.throw.on.invalid: a
	// record whose TIMESTAMP column is invalid fails the task instead of
	// being skipped.
	ThrowOnInvalidTimestamp bool
	// IdleCloseMs is window.close.idle.ms: after that long without records
	// a task's windows are closed by the wall clock (0: off, windows close
	// only as stream time advances).
	IdleCloseMs int64
	// StreamTime, when set, receives the task's stream time (the largest
	// event time a windowed operator has seen) for metrics.
	StreamTime *atomic.Int64
	// InitialStreamTime, when set, is the stream time a windowed operator
	// continues from instead of the beginning of time: the runtime keeps
	// it with the committed input offsets under exactly_once_v2, so after
	// an aborted transaction or a crash windows close and late records
	// drop exactly as in a run without either.
	InitialStreamTime *int64
	// Skipped, when set, counts the records skipped for a null key or
	// value (see TaskEnv.skip).
	Skipped *atomic.Int64
	// OpenWindows, when set, receives how many distinct windows (time
	// intervals, whatever the key) the task's windowed operator still
	// accepts records for.
	OpenWindows *atomic.Int64
	// Counts, when set, counts the records each node of the task's
	// sub-topology receives (shared by every task of the query here).
	Counts *NodeCounts
	// CacheOutputs: an unwindowed aggregation forwards a group's updates once per
	// flush of the task's stores (Task.FlushOutputs), its latest value
	// with the one last forwarded as the old, as Kafka Streams' record
	// cache does (outputCache). The runtime sets it where it flushes the
	// task before each write-down of its stores (in Kafka, with a cache
	// above 0: at each release under at_least_once, before each commit
	// under exactly_once_v2); otherwise every update is forwarded at once.
	CacheOutputs bool
	// caches are the task's output caches (outputCache), flushed in the
	// order they were made.
	caches []*outputCache
	// sub is the task's sub-topology (NewTask), whose nodes' counters a
	// join's head takes by name.
	sub int
	// punctuators are called by Task.Punctuate with the wall-clock time.
	punctuators []func(now int64) error
	// current is the input record being processed, for log entries.
	current *InRecord
	// memos are the task's memos of shared expressions (sharedExprs.memo).
	memos map[*sharedExprs]*expr.Memo
}

// Current returns the raw input record being processed.
func (e *TaskEnv) Current() *InRecord { return e.current }

func (e *TaskEnv) log(kind LogKind, target, msg string, rec []byte) {
	if e.Log == nil {
		return
	}
	entry := &LogEntry{Kind: kind, Target: target, Message: msg, Record: rec}
	if c := e.current; c != nil {
		entry.Topic, entry.Partition, entry.Offset = origin(c)
	}
	e.Log.Log(entry)
}

// onPunctuate registers fn to be called with the wall-clock time whenever
// the runtime punctuates the task.
func (e *TaskEnv) onPunctuate(fn func(now int64) error) {
	e.punctuators = append(e.punctuators, fn)
}
