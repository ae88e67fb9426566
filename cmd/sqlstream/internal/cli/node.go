package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/sqlstream/sqlstream/broker"
	"github.com/sqlstream/sqlstream/runtime/props"
)

// shutdownTimeout bounds how long the HTTP server may drain on shutdown.
const shutdownTimeout = 30 * time.Second

// node is one running sqlstream process: the embedded broker, when no
// external Kafka is configured, and the engine stack on top of it.
//
//	start:    broker ──► engine ──► HTTP server
//	shutdown: HTTP server ──► engine ──► broker
type node struct {
	lock      *dataDirLock
	broker    *broker.Broker // nil with external Kafka
	bootstrap []string
	stack     Stack
	cancel    context.CancelFunc // ends the stack's context after Shutdown
	scheme    string             // of the HTTP API: http or https
}

// startNode starts the broker (if embedded) and the stack. A signal during
// startup aborts it; once started, the stack's context outlives signals so
// that shutdown runs in order.
func startNode(ctx context.Context, s Settings, svc Services, log *slog.Logger) (*node, error) {
	lock, err := lockDataDir(s.DataDir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(s.StateDir(), 0o755); err != nil {
		return nil, errors.Join(fmt.Errorf("creating data directory: %w", err), lock.release())
	}
	n := &node{lock: lock, bootstrap: s.Bootstrap, scheme: listenScheme(s.Properties["listeners"])}
	if s.Embedded() {
		users, err := brokerUsers(svc, s)
		if err == nil {
			err = n.startBroker(s, users, log)
		}
		if err != nil {
			return nil, errors.Join(err, lock.release())
		}
		s.BrokerUser, s.BrokerPassword = n.broker.InternalCredentials()
	}
	stackCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	detach := context.AfterFunc(ctx, cancel)
	st, err := svc.StartStack(stackCtx, s, n.bootstrap, log)
	detach()
	if err != nil {
		cancel()
		return nil, errors.Join(fmt.Errorf("starting engine: %w", err), n.closeBroker(), lock.release())
	}
	n.stack, n.cancel = st, cancel
	return n, nil
}

func (n *node) startBroker(s Settings, users map[string]string, log *slog.Logger) error {
	b, err := startBroker(s, users, false, log)
	if err != nil {
		return err
	}
	n.broker, n.bootstrap = b, b.Addrs()
	return nil
}

// brokerUsers are the users the embedded broker authenticates: the API's,
// when svc knows them; nil (no authentication) otherwise.
func brokerUsers(svc Services, s Settings) (map[string]string, error) {
	bu, ok := svc.(BrokerUsers)
	if !ok {
		return nil, nil
	}
	return bu.BrokerUsers(s)
}

// startBroker starts the embedded broker on s.BrokerListen with its data
// in s.BrokerDir(). With users it takes SASL from them and, unless it is
// standalone (`sqlstream broker`, whose servers connect as users), keeps
// the command topic and the internal topics, groups and transactional ids
// of s.ServiceID to the engine.
func startBroker(s Settings, users map[string]string, standalone bool, log *slog.Logger) (*broker.Broker, error) {
	opts := []broker.Option{
		broker.WithListen(s.BrokerListen),
		broker.WithDataDir(s.BrokerDir()),
		broker.WithLogger(log.With("component", "broker")),
		broker.WithMaxPartitions(maxPartitions(s.Properties)),
	}
	if users != nil {
		opts = append(opts, broker.WithUsers(users))
	}
	if users != nil && !standalone {
		opts = append(opts, broker.WithProtected(broker.Protected{
			Topics:           []string{"_" + s.ServiceID + "_command_topic"},
			TransactionalIDs: []string{s.ServiceID}, // the command topic's producer
			Prefixes:         protectedPrefixes(s),
		}))
	}
	return broker.Start(opts...)
}

// protectedPrefixes are the names of the engine's consumer groups and
// internal topics under either naming: <service id>query_ (every query
// recorded before ksql.persistent.prefix was honoured keeps it), the
// configured persistent prefix, transient_, and ksqlDB's prefix.
func protectedPrefixes(s Settings) []string {
	out := []string{s.ServiceID + "query_", s.ServiceID + "transient_", s.ServiceID + "SCALABLE_PUSH_QUERY_", "_confluent-ksql-" + s.ServiceID}
	if p := s.Properties[props.PersistentPrefix]; p != "" && p != "query_" {
		out = append(out, s.ServiceID+p)
	}
	return out
}

// maxPartitions is the broker's partition limit: the engine's property
// (checked when the configuration was read), or the broker's default.
func maxPartitions(props map[string]string) int32 {
	n, err := strconv.ParseInt(props[broker.MaxPartitionsProperty], 10, 32)
	if err != nil || n <= 0 {
		return broker.DefaultMaxPartitions
	}
	return int32(n)
}

// shutdown stops the HTTP server and engine, then the broker, and
// releases the data directory.
func (n *node) shutdown() error {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	err := n.stack.Shutdown(ctx)
	n.cancel()
	return errors.Join(err, n.closeBroker(), n.lock.release())
}

func (n *node) closeBroker() error {
	if n.broker == nil {
		return nil
	}
	return n.broker.Close()
}

// serverURL is the URL a client on this machine uses to reach the stack:
// an unspecified listen host (0.0.0.0, ::) becomes 127.0.0.1.
func (n *node) serverURL() string {
	host, port, err := net.SplitHostPort(n.stack.Addr())
	if err != nil {
		return n.scheme + "://" + n.stack.Addr()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return n.scheme + "://" + net.JoinHostPort(host, port)
}
