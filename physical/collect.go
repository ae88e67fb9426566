package physical

import (
	"fmt"

	"github.com/sqlstream/sqlstream/sql/types"
)

// collectOp hands rows of a transient query to the RowSink.
type collectOp struct {
	env  *TaskEnv
	stop bool
	// stream is set when the rows are a stream's: a null row (a record
	// with a null value) is no event, and ksqlDB's transient queries skip
	// it, while a table's delete reaches the client.
	stream bool
}

// errStopped tells the task that the transient query's consumer wants no
// more rows.
var errStopped = fmt.Errorf("query stopped")

func (op *collectOp) Process(row *types.Row) error {
	if op.stop {
		return errStopped
	}
	if op.stream && row.Tombstone {
		return nil
	}
	cp := *row
	cp.Values = append([]any(nil), row.Values...)
	if !op.env.Rows.Row(&cp) {
		op.stop = true
		return errStopped
	}
	return nil
}

// IsStopped reports whether err means a transient query was stopped by its
// consumer (not a failure).
func IsStopped(err error) bool { return err == errStopped }
