package server

import (
	"context"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sqlstream/sqlstream/api"
)

// Engine is what the server needs from the SQL engine.
//
// Errors: an *api.StatementError or *api.ErrorMessage is sent as is (HTTP
// status = ErrorCode/100); a *sqlerr.Error becomes a statement_error with
// code 40001; anything else is a 500 (code 50000).
type Engine interface {
	// Execute runs the statements of a POST /ksql request. It parses them
	// all first: a syntax error, or a SELECT or PRINT (ksqlDB's 40002),
	// anywhere in the request runs nothing. On failure the error is an
	// *api.StatementError carrying the entities of statements that did run.
	Execute(ctx context.Context, req api.KsqlRequest) ([]api.Entity, error)
	// Query starts a SELECT (push or pull) or PRINT; sql holding more than
	// one statement is an error. ctx is the request's context and is
	// canceled when the client goes away.
	Query(ctx context.Context, sql string, props map[string]any, vars map[string]string) (api.RowStream, error)
	// CloseQuery ends a push query started through /query-stream.
	CloseQuery(id string) error
	// Insert writes one /inserts-stream row (decoded with UseNumber, so
	// numbers are json.Number) into the stream target.
	Insert(ctx context.Context, target string, row map[string]any) error
	// Info is the body of GET /info.
	Info() api.ServerInfo
	// Health is the body of GET /healthcheck.
	Health(ctx context.Context) api.HealthCheckResponse
	// CommandStatuses maps every command id to its status (GET /status).
	CommandStatuses() map[string]string
}

// CommandStatusLookup is an optional Engine extension: the full status
// (with message and query id) of one command for GET
// /status/{type}/{entity}/{action}. Without it the server answers from
// CommandStatuses with an empty message.
type CommandStatusLookup interface {
	CommandStatus(id string) (api.CommandStatus, bool)
}

// PropertyValidator is an optional Engine extension for GET
// /is_valid_property/{property}: a non-nil error means the property may
// not be overridden by clients. Without it every property is valid, which
// is ksqlDB's behaviour with its default (empty) deny list.
type PropertyValidator interface {
	ValidateProperty(name string) error
}

// ClusterStatusReporter is an optional Engine extension for GET
// /clusterStatus: hosts, their stores and store restoration progress.
// Without it the route answers 404.
type ClusterStatusReporter interface {
	ClusterStatus() api.ClusterStatusResponse
}

// MetricsProvider is an optional Engine extension: the engine's own
// figures on GET /metrics, beside the server's Go runtime, process and
// HTTP metrics (http_metrics.go), which are there without it.
type MetricsProvider interface {
	MetricsCollector() prometheus.Collector
}

// TaskLister is an optional Engine extension: this server's tasks of each
// persistent query, for GET /tasks (the web console's task table).
type TaskLister interface {
	Tasks() []api.QueryTasks
}

// ClusterTaskLister is an optional Engine extension: GET /tasks of every
// server of the service id, for GET /clusterTasks (the web console's
// figures across hosts). ctx carries the request's Authorization, passed
// on to the peers.
type ClusterTaskLister interface {
	ClusterTasks(ctx context.Context) api.ClusterTasks
}

// ClusterMetricsLister is an optional Engine extension: the engine's
// metrics of every server of the service id, for GET /clusterMetrics
// (the web console's Metrics tab across hosts). ctx carries the
// request's Authorization, passed on to the peers.
type ClusterMetricsLister interface {
	ClusterMetrics(ctx context.Context) api.ClusterMetrics
}
