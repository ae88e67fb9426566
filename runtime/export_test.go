package runtime

import "fmt"

// Test hooks, for this package's external tests only: they are no part
// of the engine's API.
var (
	WithGlobalLoadHook       = withGlobalLoadHook
	WithGlobalPartitionCheck = withGlobalPartitionCheck
	WithReplicaFault         = withReplicaFault
	WithStateFS              = withStateFS
)

// QueryStarts counts the persistent query runs the engine started.
func (e *Engine) QueryStarts() int64 { return e.queryStarts.Load() }

// PauseFacts is what the runner of query id says of a PAUSE: whether it
// took effect (nothing fetched, everything processed before committed,
// no transaction open) and how many poll rounds it has made paused.
func (e *Engine) PauseFacts(id string) (paused bool, rounds int64, err error) {
	e.mu.Lock()
	q, ok := e.queries[id]
	e.mu.Unlock()
	if !ok {
		return false, 0, fmt.Errorf("no query %s", id)
	}
	p, err := q.pausedRunner()
	if err != nil {
		return false, 0, err
	}
	return p.Paused(), p.PausedRounds(), nil
}
