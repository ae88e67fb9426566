package runtime

import (
	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime/props"
)

// maxPushQueriesMessage is ksqlDB's answer (error 40003) to a push query
// beyond ksql.max.push.queries.
const maxPushQueriesMessage = "Maximum number of push queries exceeded"

// register adds t to the running transient queries. A push query that
// would make more than ksql.max.push.queries run at once is refused with
// ksqlDB's error 40003; pull queries are not counted.
func (e *Engine) register(t *transient) error {
	e.tmu.Lock()
	defer e.tmu.Unlock()
	if t.push {
		if limit := e.cfg.MaxPushQueries; e.pushQueriesLocked() >= limit {
			e.logger.Warn("push query refused", "limit", limit, "property", props.MaxPushQueries)
			return &api.ErrorMessage{ErrorCode: api.CodeMaxPushQueries, Message: maxPushQueriesMessage}
		}
	}
	e.transients[t.id] = t
	return nil
}

// pushQueriesLocked counts the running push queries; e.tmu is held.
func (e *Engine) pushQueriesLocked() int {
	n := 0
	for _, t := range e.transients {
		if t.push {
			n++
		}
	}
	return n
}
