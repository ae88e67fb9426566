package runtime

import (
	"context"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/state"
)

// defaultHealthWait is how long /healthcheck waits for the engine lock: a
// statement holding it longer than this has wedged statement execution.
const defaultHealthWait = 5 * time.Second

// Health implements the server's /healthcheck: Kafka answers a ping, the
// command topic exists and is readable (without it the next start would
// come up with an empty catalog), the command runner (statement
// execution, which serializes on the engine lock) is not wedged, and the
// local state DB takes writes (the metastore check). An
// unhealthy engine still answers, with the failed check false and its
// error, in ksqlDB's shape.
func (e *Engine) Health(ctx context.Context) api.HealthCheckResponse {
	kafka := api.HealthCheck{IsHealthy: true}
	if err := e.cluster.Ping(ctx); err != nil {
		kafka = api.HealthCheck{Error: "Kafka does not answer: " + err.Error()}
	}
	runner := api.HealthCheck{IsHealthy: true}
	if !kafka.IsHealthy {
		// Without Kafka the command topic cannot be read either: say so
		// once, without waiting out its 10 s check on every probe.
		runner = api.HealthCheck{Error: "the command topic cannot be checked: Kafka does not answer"}
	} else if err := e.commandTopicReadable(ctx); err != nil {
		runner = api.HealthCheck{Error: err.Error()}
		e.logger.Error("healthcheck: "+err.Error(), "topic", e.cmdLog.Topic())
	} else if !e.lockWithin(ctx, e.healthWait) {
		runner = api.HealthCheck{Error: "statement execution is wedged: the engine lock was not free within " + e.healthWait.String()}
		e.logger.Warn("healthcheck: statement execution is wedged; the engine lock was not free within the bound", "bound", e.healthWait)
	}
	// ksqlDB's metastore check reads local state; here that is the state
	// DB, which a full disk stops taking writes (storage_failure.go).
	local := api.HealthCheck{IsHealthy: true}
	if err := e.StorageFailure(); err != nil {
		next := " (free space in the data directory: the server probes it and, once it takes writes, reopens local state and restarts those queries)"
		if state.NeedsRestart(err) {
			next = " (free space in the data directory, then restart the server)"
		}
		local = api.HealthCheck{Error: "local state takes no writes, so every query with state is in ERROR: " + err.Error() + next}
	}
	return api.HealthCheckResponse{
		IsHealthy: kafka.IsHealthy && runner.IsHealthy && local.IsHealthy,
		Details: api.HealthDetails{
			Metastore:     local,
			Kafka:         kafka,
			CommandRunner: runner,
		},
		ServerState: api.ServerReady,
	}
}

// commandTopicReadable checks the command topic (commandlog's
// Readable; nil for an engine without a command log).
func (e *Engine) commandTopicReadable(ctx context.Context) error {
	if e.cmdLog == nil {
		return nil
	}
	return e.cmdLog.Readable(ctx)
}

// lockWithin reports whether the engine lock could be taken (and is
// released at once) within d or before ctx ends. It polls TryLock, so a
// wedged lock leaves no goroutine behind.
func (e *Engine) lockWithin(ctx context.Context, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if e.mu.TryLock() {
			e.mu.Unlock()
			return true
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}
