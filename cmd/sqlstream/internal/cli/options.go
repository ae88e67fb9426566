package cli

import (
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/sqlstream/sqlstream/internal/gcpacing"
	"github.com/sqlstream/sqlstream/runtime/props"
)

// option is one setting that a flag and a config-file key can both give.
// Values are kept in config-file form; check validates one.
type option struct {
	flag  string // flag name without dashes
	key   string // config-file key
	def   string // default, in config-file form
	arg   string // the flag's argument name in --help
	usage string
	check func(string) error
}

// serverOptions are the settings of `sqlstream` and `sqlstream server`.
func serverOptions() []option {
	return []option{
		{"listen", "listeners", "127.0.0.1:8088", "ADDR",
			"HTTP API address, host:port or http://host:port", checkListeners},
		{"bootstrap-servers", "bootstrap.servers", "", "HOSTS",
			"external Kafka brokers, comma separated (default: run the embedded broker)", checkHostPorts},
		{"broker-listen", props.BrokerListen, "127.0.0.1:9092", "ADDR",
			"embedded broker address, host:port (port 0 picks a free port)", checkHostPort},
		{"schema-registry-listen", "sqlstream.schema.registry.listen", "127.0.0.1:8081", "ADDR",
			"embedded schema registry address, host:port (port 0 picks a free port); it runs with the embedded broker, or with bootstrap.servers when set explicitly", checkHostPort},
		{"schema-registry-url", props.SchemaRegistryURL, "", "URL",
			"an external schema registry, http(s)://host:port; the embedded one then does not start", checkRegistryURL},
		{"schema-registry-topic", "kafkastore.topic", "_schemas", "TOPIC",
			"the embedded schema registry's topic (Confluent's kafkastore.topic); servers sharing it share one registry", checkTopicName},
		{"data-dir", props.DataDir, "./sqlstream-data", "DIR",
			"directory for broker data (broker/), engine state (state/), REPL history and the log", checkNonEmpty},
		{"service-id", props.ServiceID, "default_", "ID",
			"service id: prefix of the command topic, internal topics and consumer groups", checkServiceID},
		{"log-level", props.LogLevel, "info", "LEVEL",
			"minimum log level: debug, info, warn or error", checkLogLevel},
		{"log-format", props.LogFormat, "text", "FORMAT",
			"log line format: text (key=value) or json (one object per line, for log shippers)", checkLogFormat},
		{"gc-percent", props.GCPercent, strconv.Itoa(gcpacing.DefaultPercent), "PERCENT",
			"the Go garbage collector's target (GOGC's meaning): the heap may grow by this percentage of its live size before the next collection; off collects only near the memory limit. Unset, GOGC in the environment applies, else 400 with a memory limit in force and Go's 100 without one", gcpacing.CheckPercent},
		{"memory-limit", props.MemoryLimit, gcpacing.DefaultLimit, "SIZE",
			"soft memory limit of the process (GOMEMLIMIT's meaning: the collector works harder near it): a size (2GB, 1536MiB, bytes), a share of the cgroup's memory limit or else of MemTotal (75%), or off. Unset, GOMEMLIMIT in the environment applies, else 75%", gcpacing.CheckLimit},
	}
}

// checkRegistryURL allows "" (none) or http(s) URLs, comma separated as
// Confluent's clients take them.
func checkRegistryURL(v string) error {
	for _, u := range splitList(v) {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return fmt.Errorf("%q is not an http(s)://host:port URL", u)
		}
	}
	return nil
}

// checkTopicName allows what Kafka allows in a topic name.
func checkTopicName(v string) error {
	if v == "" || len(v) > 249 || v == "." || v == ".." {
		return fmt.Errorf("%q is not a valid topic name", v)
	}
	return checkServiceID(v)
}

func checkNonEmpty(v string) error {
	if v == "" {
		return fmt.Errorf("must not be empty")
	}
	return nil
}

// listenAddr turns a listeners value (http://host:port, or several comma
// separated, the first of which is used) or a bare host:port into host:port.
func listenAddr(v string) (string, error) {
	first, _, _ := strings.Cut(v, ",")
	first = strings.TrimSpace(first)
	if !strings.Contains(first, "://") {
		return first, checkHostPort(first)
	}
	u, err := url.Parse(first)
	if err != nil {
		return "", fmt.Errorf("%q is not a URL: %v", first, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("%q: only http and https listeners are supported", first)
	}
	return u.Host, checkHostPort(u.Host)
}

func checkListeners(v string) error {
	_, err := listenAddr(v)
	return err
}

func checkHostPort(v string) error {
	host, port, err := net.SplitHostPort(v)
	if err != nil {
		return fmt.Errorf("%q is not host:port", v)
	}
	if host == "" {
		return fmt.Errorf("%q has no host", v)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%q has an invalid port", v)
	}
	return nil
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func checkHostPorts(v string) error {
	for _, hp := range splitList(v) {
		if err := checkHostPort(hp); err != nil {
			return err
		}
	}
	return nil
}

// checkServiceID allows what may prefix a Kafka topic name.
func checkServiceID(v string) error {
	if v == "" {
		return fmt.Errorf("must not be empty")
	}
	for _, r := range v {
		if !isTopicChar(r) {
			return fmt.Errorf("%q may only contain letters, digits, '.', '_' and '-'", v)
		}
	}
	return nil
}

func isTopicChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		r == '.' || r == '_' || r == '-'
}

func parseLogLevel(v string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(v)); err != nil {
		return 0, fmt.Errorf("%q is not one of debug, info, warn, error", v)
	}
	return l, nil
}

func checkLogFormat(v string) error {
	if v != "text" && v != "json" {
		return fmt.Errorf("%q is not one of text, json", v)
	}
	return nil
}

func checkLogLevel(v string) error {
	_, err := parseLogLevel(v)
	return err
}

// listenScheme is https when the first listener is an https:// URL, else
// http.
func listenScheme(v string) string {
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(v)), "https://") {
		return "https"
	}
	return "http"
}
