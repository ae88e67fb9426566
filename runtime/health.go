package runtime

import (
	"context"
	"time"

	"github.com/sqlstream/sqlstream/api"
)

// defaultHealthWait is how long /healthcheck waits for the engine lock: a
// statement holding it longer than this has wedged statement execution.
const defaultHealthWait = 5 * time.Second

// Health implements the server's /healthcheck: Kafka answers a ping, and
// the command runner (statement execution, which serializes on the engine
// lock) is not wedged. An unhealthy engine still answers, with the failed
// check false, in ksqlDB's shape.
func (e *Engine) Health(ctx context.Context) api.HealthCheckResponse {
	kafkaOK := true
	if kc, ok := e.cluster.(*kafkaCluster); ok {
		kafkaOK = kc.ping(ctx) == nil
	}
	runnerOK := e.lockWithin(ctx, e.healthWait)
	if !runnerOK {
		e.logger.Warn("healthcheck: statement execution is wedged; the engine lock was not free within the bound", "bound", e.healthWait)
	}
	return api.HealthCheckResponse{
		IsHealthy: kafkaOK && runnerOK,
		Details: api.HealthDetails{
			Metastore:     api.HealthCheck{IsHealthy: true},
			Kafka:         api.HealthCheck{IsHealthy: kafkaOK},
			CommandRunner: api.HealthCheck{IsHealthy: runnerOK},
		},
		ServerState: api.ServerReady,
	}
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
