package runtime_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/broker"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
)

// TestHealthCoversCommandTopic is issue 16.4's health check: on a Kafka
// that lets a client delete the command topic (kfake, not the embedded
// broker, which refuses), /healthcheck turns red once it is gone, with a
// reason naming it, where before it was green.
func TestHealthCoversCommandTopic(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.DefaultNumPartitions(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e, err := runtime.New(ctx, runtime.WithBootstrap(c.ListenAddrs()), runtime.WithDataDir(t.TempDir()+"/state"),
		runtime.WithLogger(testLogger()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if h := e.Health(ctx); !h.IsHealthy {
		t.Fatalf("fresh engine unhealthy: %+v", h)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).DeleteTopics(ctx, "_default__command_topic"); err != nil {
		t.Fatal(err)
	}
	h := e.Health(ctx)
	if h.IsHealthy || h.Details.CommandRunner.IsHealthy || !strings.Contains(h.Details.CommandRunner.Error, "_default__command_topic does not exist") {
		t.Fatalf("after deleting the command topic: %+v, want the command runner unhealthy naming the topic", h)
	}
}

// TestEngineAuthenticatesToBroker: on an embedded broker with users, the
// engine's clients authenticate with WithKafkaSASL as the broker's
// internal user, run statements and are healthy.
func TestEngineAuthenticatesToBroker(t *testing.T) {
	b, err := broker.Start(broker.WithListen("127.0.0.1:0"), broker.WithUsers(map[string]string{"alice": "wonderland"}),
		broker.WithProtected(broker.Protected{Topics: []string{"_default__command_topic"}, TransactionalIDs: []string{"default_"},
			Prefixes: []string{"default_query_", "default_transient_"}}),
		broker.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	user, password := b.InternalCredentials()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e, err := runtime.New(ctx, runtime.WithBootstrap(b.Addrs()), runtime.WithDataDir(t.TempDir()+"/state"),
		runtime.WithLogger(testLogger()), runtime.WithKafkaSASL(plain.Auth{User: user, Pass: password}.AsMechanism()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if _, err := e.Execute(ctx, api.KsqlRequest{Ksql: "CREATE STREAM s (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);"}); err != nil {
		t.Fatal(err)
	}
	if h := e.Health(ctx); !h.IsHealthy {
		t.Fatalf("engine on an authenticating broker unhealthy: %+v", h)
	}
}
