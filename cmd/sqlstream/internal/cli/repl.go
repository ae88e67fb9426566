package cli

import (
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
)

// replSettings are the flags of `sqlstream repl`.
type replSettings struct {
	server, history    string
	user, password, ca string
}

func replCommand(args []string, stdio Stdio, svc Services) error {
	fs := flag.NewFlagSet("sqlstream repl", flag.ContinueOnError)
	var rs replSettings
	fs.StringVar(&rs.server, "server", "http://127.0.0.1:8088", "URL of a running sqlstream server")
	fs.StringVar(&rs.history, "history", filepath.Join("sqlstream-data", "history"), "REPL history file")
	fs.StringVar(&rs.user, "user", "", "user of HTTP basic authentication (or http://user:password@host:port in --server)")
	fs.StringVar(&rs.password, "password", "", "password of --user (default: $SQLSTREAM_PASSWORD)")
	fs.StringVar(&rs.ca, "ca-file", "", "PEM file of CA certificates to trust for an https server")
	fs.Usage = func() { printREPLUsage(fs.Output(), fs) }
	rs, err := parseAndResolve(fs, args, stdio, func() (replSettings, error) { return rs.validate() })
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(rs.history), 0o755); err != nil {
		return fmt.Errorf("creating history directory: %w", err)
	}
	ctx, stop := signalContext(true)
	defer stop()
	if rs.user != "" && rs.password == "" {
		rs.password = os.Getenv("SQLSTREAM_PASSWORD")
	}
	return svc.RunREPL(ctx, REPLConfig{ServerURL: rs.server, HistoryFile: rs.history, Stdio: stdio,
		User: rs.user, Password: rs.password, CAFile: rs.ca})
}

func (rs replSettings) validate() (replSettings, error) {
	u, err := url.Parse(rs.server)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return rs, configErrorf("--server: %q is not an http(s)://host:port URL", rs.server)
	}
	if rs.history == "" {
		return rs, configErrorf("--history: must not be empty")
	}
	return rs, nil
}
