package cli

import (
	"log/slog"
	"path/filepath"

	"github.com/sqlstream/sqlstream/internal/gcpacing"
)

// Settings is the validated configuration of one sqlstream process, merged
// from defaults, the --config file and explicit flags (in rising order).
type Settings struct {
	// Listen is the HTTP API's host:port.
	Listen string
	// Bootstrap lists external Kafka brokers; empty runs the embedded one.
	Bootstrap []string
	// BrokerListen is the embedded broker's host:port.
	BrokerListen string
	// SchemaRegistryListen is the embedded schema registry's host:port;
	// "" when it does not run (an external ksql.schema.registry.url is
	// configured, or Kafka is external and the address was not given).
	SchemaRegistryListen string
	// SchemaRegistryTopic is the embedded registry's log topic.
	SchemaRegistryTopic string
	// DataDir holds broker data, engine state, REPL history and the log.
	DataDir string
	// ServiceID prefixes the command topic, internal topics and groups.
	ServiceID string
	// LogLevel is the minimum level logged.
	LogLevel slog.Level
	// LogFormat is "text" (slog's key=value lines) or "json".
	LogFormat string
	// Properties are the ksqlDB properties handed to the engine: every key
	// of the config file plus listeners, bootstrap.servers and
	// ksql.service.id as resolved.
	Properties map[string]string
	// Pacing is the garbage collector's pacing the server runs with
	// (sqlstream.gc.percent, sqlstream.memory.limit, or GOGC and
	// GOMEMLIMIT, or the defaults), applied at start.
	Pacing gcpacing.Pacing
	// BrokerUser and BrokerPassword are the embedded broker's internal
	// user, set once it runs with authentication ("" without): the
	// engine's clients authenticate as it.
	BrokerUser, BrokerPassword string
	// CPUProfile is the file `sqlstream server` writes a CPU profile to,
	// from its ready line to the signal that stops it (--cpu-profile, a
	// diagnostic flag with no config key); "" writes none.
	CPUProfile string
}

// Embedded reports whether the process runs its own broker.
func (s Settings) Embedded() bool { return len(s.Bootstrap) == 0 }

// BrokerDir is where the embedded broker keeps topics and offsets.
func (s Settings) BrokerDir() string { return filepath.Join(s.DataDir, "broker") }

// StateDir is where the engine keeps its state stores.
func (s Settings) StateDir() string { return filepath.Join(s.DataDir, "state") }

// HistoryFile is the REPL's history in combined mode.
func (s Settings) HistoryFile() string { return filepath.Join(s.DataDir, "history") }

// LogFile receives the logs in combined server+REPL mode.
func (s Settings) LogFile() string { return filepath.Join(s.DataDir, "sqlstream.log") }
