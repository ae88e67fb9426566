package cli

import (
	"context"
	"errors"
	"flag"
	"strings"
)

// brokerOptions are the settings of `sqlstream broker`: the server's
// embedded-broker options, with the same flags and config-file keys.
func brokerOptions() []option {
	var opts []option
	for _, o := range serverOptions() {
		switch o.flag {
		case "broker-listen":
			o.usage = "broker address, host:port (port 0 picks a free port)"
		case "data-dir":
			o.usage = "directory for the broker's data (in broker/)"
		case "log-level", "log-format":
		default:
			continue
		}
		opts = append(opts, o)
	}
	return opts
}

// brokerCommand runs `sqlstream broker`: the embedded broker alone, so
// that several engine processes can share one that survives them. The
// other keys of a --config file are checked as for the server and
// ignored, so servers and the broker can share one file; with
// authentication.method=BASIC the broker takes SASL from its users
// (servers then connect as one of them with security.protocol=
// SASL_PLAINTEXT), but, serving the servers of any service id as users,
// it keeps no internal topic to itself beyond what every broker keeps
// (command topics and _schemas are never deleted).
func brokerCommand(args []string, stdio Stdio, svc Services) error {
	fs := flag.NewFlagSet("sqlstream broker", flag.ContinueOnError)
	sf := newOptionFlags(fs, brokerOptions())
	fs.Usage = func() { printBrokerUsage(fs.Output(), fs) }
	s, err := parseAndResolve(fs, args, stdio, sf.resolve)
	if err != nil {
		return err
	}
	ctx, stop := signalContext(false)
	defer stop()
	users, err := brokerUsers(svc, s)
	if err != nil {
		return err
	}
	return runBroker(ctx, s, users, stdio)
}

// runBroker runs the broker until ctx ends (SIGINT or SIGTERM), then
// closes it, which writes its state to the data directory.
func runBroker(ctx context.Context, s Settings, users map[string]string, stdio Stdio) error {
	log := newLogger(stdio.Err, s)
	lock, err := lockDataDir(s.DataDir)
	if err != nil {
		return err
	}
	b, err := startBroker(s, users, true, log)
	if err != nil {
		return errors.Join(err, lock.release())
	}
	log.Info("sqlstream broker ready", "kafka", strings.Join(b.Addrs(), ","), "data_dir", s.DataDir)
	<-ctx.Done()
	log.Info("shutting down")
	return errors.Join(b.Close(), lock.release())
}
