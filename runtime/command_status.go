package runtime

import (
	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime/props"
)

// CommandStatus implements the server's CommandStatusLookup (GET
// /status/{type}/{entity}/{action}): the status, message and query id a
// command answered with, including commands replayed from the command
// topic at start-up.
func (e *Engine) CommandStatus(id string) (api.CommandStatus, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if st, ok := e.commands[id]; ok {
		return st, true
	}
	status, ok := e.statuses[id]
	return api.CommandStatus{Status: status}, ok
}

// ValidateProperty implements the server's PropertyValidator (GET
// /is_valid_property/{property}): an error for a property the engine
// does not know or a client may not override.
func (e *Engine) ValidateProperty(name string) error {
	d, err := e.table.Lookup(name)
	if err != nil {
		return err
	}
	if d.Fixed() {
		return &props.Error{Name: name, Problem: props.ProblemProhibited}
	}
	return nil
}
