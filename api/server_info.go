package api

// ServerInfo describes the server (GET /info, wrapped in ServerInfoBody).
type ServerInfo struct {
	Version        string `json:"version"`
	KafkaClusterID string `json:"kafkaClusterId"`
	KsqlServiceID  string `json:"ksqlServiceId"`
	ServerStatus   string `json:"serverStatus"` // RUNNING, …
}

// ServerInfoBody is the body of GET /info: {"KsqlServerInfo":{…}}.
type ServerInfoBody struct {
	KsqlServerInfo ServerInfo `json:"KsqlServerInfo"`
}

// Server states of HealthCheckResponse.ServerState.
const (
	ServerInitializing = "INITIALIZING"
	ServerReady        = "READY"
	ServerTerminating  = "TERMINATING"
	ServerTerminated   = "TERMINATED"
)

// HealthCheckResponse is the body of GET /healthcheck (always HTTP 200).
type HealthCheckResponse struct {
	IsHealthy   bool          `json:"isHealthy"`
	Details     HealthDetails `json:"details"`
	ServerState string        `json:"serverState"`
}

// HealthDetails are the individual checks, in ksqlDB's order.
type HealthDetails struct {
	Metastore     HealthCheck `json:"metastore"`
	Kafka         HealthCheck `json:"kafka"`
	CommandRunner HealthCheck `json:"commandRunner"`
}

// HealthCheck is the result of one check.
type HealthCheck struct {
	IsHealthy bool `json:"isHealthy"`
	// Error says why the check failed (not in ksqlDB's answer, which
	// clients ignore).
	Error string `json:"error,omitempty"`
}
