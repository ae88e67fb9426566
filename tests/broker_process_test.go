package tests

import (
	"slices"
	"testing"
	"time"
)

// TestServerOnBrokerProcess runs `sqlstream broker` as its own process
// and a `sqlstream server --bootstrap-servers` on it. The server is
// killed with SIGKILL and restarted: streams, tables and their data are
// still there, because they live in the broker. Then the broker is
// stopped with SIGTERM and restarted on its port: topics and records
// survive, and the server started again on it sees everything.
func TestServerOnBrokerProcess(t *testing.T) {
	br := startBrokerProcess(t)
	srv := startServerOn(t, br.Kafka, "--config", writeConfig(t, "ksql.streams.commit.interval.ms=100\n"))
	srv.mustKsql(`CREATE STREAM clicks (uid VARCHAR KEY, page VARCHAR)
	  WITH (KAFKA_TOPIC='clicks', VALUE_FORMAT='JSON', PARTITIONS=1);
	CREATE TABLE clicks_per_user AS SELECT uid, COUNT(*) AS n FROM clicks GROUP BY uid EMIT CHANGES;`)
	srv.mustKsql(`INSERT INTO clicks (uid, page) VALUES ('u1', 'home');
	INSERT INTO clicks (uid, page) VALUES ('u1', 'cart');
	INSERT INTO clicks (uid, page) VALUES ('u2', 'home');`)
	eventually(t, "counts", func() error {
		return same(counts(t, srv, "SELECT * FROM clicks_per_user;"), map[string]string{"u1": "2", "u2": "1"})
	})
	awaitQueriesCommitted(t, br.Kafka, "clicks")

	srv.kill()
	srv.start()
	srv.mustKsql(`INSERT INTO clicks (uid, page) VALUES ('u2', 'cart');`)
	want := map[string]string{"u1": "2", "u2": "2"}
	// The killed server's consumers stay members of their groups until
	// their session times out (franz-go's default, 45 s): only then does
	// the restarted one get the partitions.
	eventuallyWithin(t, "counts after the server's SIGKILL", 90*time.Second, func() error {
		return same(counts(t, srv, "SELECT * FROM clicks_per_user;"), want)
	})
	records := consume(t, br.Kafka, "clicks", 4)

	srv.stop()
	br.restart()
	if got := consume(t, br.Kafka, "clicks", 4); !slices.Equal(got, records) {
		t.Fatalf("after the broker's restart clicks holds %v, want %v", got, records)
	}
	srv.start()
	eventually(t, "counts after the broker's restart", func() error {
		return same(counts(t, srv, "SELECT * FROM clicks_per_user;"), want)
	})
	if got := consume(t, br.Kafka, "clicks", 4); !slices.Equal(got, records) {
		t.Fatalf("after the server's restart clicks holds %v, want %v", got, records)
	}
}
