package cli

import (
	"context"
	"io"
	"log/slog"
)

// Services are the parts of sqlstream the binary runs but does not own:
// the engine with its HTTP server and the REPL. The binary's wire.go
// implements them; tests use fakes. Services that also implement
// TestRunner get the `sqlstream test` command.
type Services interface {
	// StartStack starts the engine on the given brokers and its HTTP
	// server on s.Listen.
	StartStack(ctx context.Context, s Settings, bootstrap []string, log *slog.Logger) (Stack, error)
	// RunREPL runs the interactive shell until the user leaves or ctx ends.
	RunREPL(ctx context.Context, c REPLConfig) error
}

// BrokerUsers is implemented by Services that know the HTTP API's users:
// the embedded broker then takes SASL/PLAIN and SCRAM from them
// (broker.WithUsers), and refuses anonymous clients.
type BrokerUsers interface {
	// BrokerUsers returns the users of the API's BASIC authentication
	// (name → credential as in the users file), or nil when it is off.
	BrokerUsers(s Settings) (map[string]string, error)
}

// TestRunner runs `sqlstream test` (ksqlDB's QTT, RQTT and SQL test files) and returns
// its exit code.
type TestRunner interface {
	RunTests(args []string, stdout, stderr io.Writer) int
}

// Stack is a running engine behind its HTTP server.
type Stack interface {
	// Addr is the HTTP server's bound host:port.
	Addr() string
	// Shutdown stops the server, then the engine.
	Shutdown(ctx context.Context) error
}

// RegistryStack is a Stack that may run the embedded schema registry;
// SchemaRegistryURL is "" when it does not run there.
type RegistryStack interface {
	SchemaRegistryURL() string
}

// registryURL is st's embedded schema registry URL, or "".
func registryURL(st Stack) string {
	if r, ok := st.(RegistryStack); ok {
		return r.SchemaRegistryURL()
	}
	return ""
}

// REPLConfig is what the REPL needs to run.
type REPLConfig struct {
	ServerURL   string
	HistoryFile string
	Stdio       Stdio
	// User and Password are sent as basic authentication; CAFile is a
	// PEM file of CAs to trust. All optional.
	User, Password, CAFile string
}

// Stdio are the process's standard streams.
type Stdio struct {
	In       io.Reader
	Out, Err io.Writer
}
