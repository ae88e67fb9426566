package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
)

// TestServerStopsCleanlyOnSIGINT: Ctrl-C on `sqlstream server` is a
// graceful shutdown with exit code 0, like SIGTERM.
func TestServerStopsCleanlyOnSIGINT(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	n.mustKsql(createPageviews)
	n.stopWith(os.Interrupt)
	if !strings.Contains(n.Logs(), `msg="shutting down"`) {
		t.Fatalf("no graceful shutdown logged:\n%s", n.Logs())
	}
}

// TestExternalKafkaFromConfigFile: with bootstrap.servers in the --config
// file, sqlstream runs no broker of its own and keeps its command topic
// (named after ksql.service.id) in the external cluster.
func TestExternalKafkaFromConfigFile(t *testing.T) {
	t.Parallel()
	kafka := startBroker(t, t.TempDir()).Addrs()[0]
	dataDir := t.TempDir()
	cfg := filepath.Join(dataDir, "sqlstream.properties")
	props := "listeners=http://127.0.0.1:0\nbootstrap.servers=" + kafka + "\nksql.service.id=cfg_\n"
	if err := os.WriteFile(cfg, []byte(props), 0o644); err != nil {
		t.Fatal(err)
	}
	n := startNodeArgs(t, dataDir, "--config", cfg, "--data-dir", dataDir)
	if n.Kafka != kafka {
		t.Fatalf("server uses Kafka at %s, want the external %s", n.Kafka, kafka)
	}
	n.mustKsql(createPageviews)
	topics, err := kadm.NewClient(kafkaClient(t, kafka)).ListTopics(timeoutCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"_cfg__command_topic", "page-views"} {
		if !topics.Has(want) {
			t.Errorf("external Kafka lacks topic %s; has %v", want, topics.Names())
		}
	}
	if _, err := os.Stat(filepath.Join(dataDir, "broker")); !os.IsNotExist(err) {
		t.Errorf("an embedded broker ran despite bootstrap.servers (%v)", err)
	}
}
