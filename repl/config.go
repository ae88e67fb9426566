package repl

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
)

// Config configures Run.
type Config struct {
	// ServerURL is the server's base URL, e.g. http://127.0.0.1:8088.
	ServerURL string
	// HistoryFile keeps statement history between sessions (interactive
	// mode only). Empty: no history file.
	HistoryFile string
	// Stdin is read for statements. When it is a terminal the REPL uses
	// line editing, history and completion; otherwise it reads lines
	// without prompts (a piped script). Default: os.Stdin. An
	// io.ReadCloser is not closed by Run.
	Stdin io.Reader
	// Stdout receives results; Stderr receives error messages.
	// Defaults: os.Stdout and os.Stderr.
	Stdout, Stderr io.Writer
	// Width is the output width for tables and query rows. Default: the
	// terminal's width, or 80 when Stdout is not a terminal.
	Width int
	// HTTPClient sends the requests. Default: a client without timeouts
	// (push queries run until stopped), trusting CAFile when set.
	HTTPClient *http.Client
	// User and Password are sent as HTTP basic authentication with every
	// request. Default: the userinfo of ServerURL, if any; else none.
	User, Password string
	// CAFile is a PEM file of CA certificates to trust for an https
	// server besides the system's. Default: none.
	CAFile string
	// Version is the CLI's version, printed by the VERSION command.
	// Default: the version the server reports in /info.
	Version string
	// Interrupt, when set, replaces SIGINT as the "Ctrl-C" that stops a
	// running query (tests send on it).
	Interrupt <-chan struct{}
}

func (c *Config) withDefaults() {
	if c.Stdin == nil {
		c.Stdin = os.Stdin
	}
	if c.Stdout == nil {
		c.Stdout = os.Stdout
	}
	if c.Stderr == nil {
		c.Stderr = os.Stderr
	}
	if c.HTTPClient == nil && c.CAFile == "" {
		c.HTTPClient = &http.Client{}
	}
}

func (c *Config) validate() error {
	if c.ServerURL == "" {
		return errors.New("repl: Config.ServerURL is required")
	}
	u, err := url.Parse(c.ServerURL)
	if err != nil {
		return errors.New("repl: server URL " + c.ServerURL + ": " + err.Error())
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return errors.New("repl: server URL " + c.ServerURL + " must start with http:// or https://")
	}
	if c.HTTPClient == nil {
		hc, err := trustingClient(c.CAFile)
		if err != nil {
			return err
		}
		c.HTTPClient = hc
	}
	if c.Width < 0 {
		return errors.New("repl: Config.Width must not be negative")
	}
	return nil
}
