package physical

import (
	"fmt"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/state"
)

// Store is the byte store operators keep state in (state.Store: cached,
// changelogged, in Pebble).
type Store = state.Store

// StoreProvider opens a task's state stores by name; the runtime wires
// each to the store's changelog partition.
type StoreProvider interface {
	Store(name string) (Store, error)
}

func (e *TaskEnv) store(name string) (Store, error) {
	if e.Stores == nil {
		return nil, fmt.Errorf("no state stores available for %s", name)
	}
	return e.Stores.Store(name)
}

// undo retracts args from an accumulator with the function's subtractor.
func undo(c planner.AggCall, acc any, args []any) (any, error) {
	u, ok := c.Agg.(functions.Undoer)
	if !ok {
		return acc, fmt.Errorf("%s cannot retract values", c.Call.Name)
	}
	return u.Undo(acc, args)
}
