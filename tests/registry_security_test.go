package tests

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/internal/pemfile"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
)

// TestEmbeddedRegistryOverSASLSSL: the embedded registry beside a server
// whose external Kafka needs SASL_SSL keeps its _schemas topic on that
// Kafka with the server's security settings: CREATE and CTAS register
// their subjects, the topic holds them (read by a client of its own over
// SASL_SSL), a restart reads them back from the topic, and a client
// without credentials is refused by that Kafka.
func TestEmbeddedRegistryOverSASLSSL(t *testing.T) {
	ca, certFile, keyFile := writeTestCertificates(t, t.TempDir())
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	kafka, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.EnableSASL(),
		kfake.Superuser("PLAIN", "alice", "pw-a"), kfake.TLS(&tls.Config{Certificates: []tls.Certificate{cert}}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kafka.Close)
	addr := kafka.ListenAddrs()[0]
	cfg := writeConfig(t, "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n"+
		`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="pw-a";`+"\n"+
		"ssl.truststore.location="+ca+"\n")
	n := startServerOn(t, addr, "--config", cfg, "--schema-registry-listen", "127.0.0.1:0")
	n.mustKsql(`CREATE STREAM pv (usr STRING KEY, page STRING) WITH (KAFKA_TOPIC='pv', VALUE_FORMAT='AVRO', PARTITIONS=1);`)
	n.mustKsql(`INSERT INTO pv (usr, page) VALUES ('ann', 'home');`)
	n.mustKsql(`SET 'auto.offset.reset'='earliest';
		CREATE TABLE visits WITH (VALUE_FORMAT='AVRO') AS SELECT usr, COUNT(*) AS n FROM pv GROUP BY usr;`)
	subjects := func() string {
		got, err := registryClient(t, registryURL(t, n)).Subjects(timeoutCtx(t))
		if err != nil {
			t.Fatalf("subjects of the embedded registry: %v", err)
		}
		sort.Strings(got)
		return fmt.Sprint(got)
	}
	// The CTAS registers its sink's subject before it answers; the
	// aggregate's changelog subject comes with the store's first
	// changelog record.
	if got := subjects(); !strings.Contains(got, "VISITS-value") || !strings.Contains(got, "pv-value") {
		t.Fatalf("subjects %s, want VISITS-value and pv-value", got)
	}
	const want = "[VISITS-value default_query_CTAS_VISITS_1-Aggregate-Aggregate-Materialize-changelog-value pv-value]"
	eventually(t, "ann's visit in the AVRO table", func() error {
		rows, err := pullRows(n, "SELECT * FROM visits WHERE usr = 'ann';")
		if err == nil && fmt.Sprint(rows) != "[[ann 1]]" {
			err = fmt.Errorf("visits holds %v, want [[ann 1]]", rows)
		}
		return err
	})
	eventually(t, "the sink's, the changelog's and the source's subjects", func() error {
		if got := subjects(); got != want {
			return fmt.Errorf("subjects %s, want %s", got, want)
		}
		return nil
	})

	pool, err := pemfile.LoadCertPool(ca)
	if err != nil {
		t.Fatal(err)
	}
	secure := []kgo.Opt{kgo.DialTLSConfig(&tls.Config{RootCAs: pool}),
		kgo.SASL(plain.Auth{User: "alice", Pass: "pw-a"}.AsMechanism())}
	if got := schemaSubjectsIn(t, addr, secure...); !strings.Contains(got, "pv-value") || !strings.Contains(got, "VISITS-value") {
		t.Fatalf("_schemas on the SASL_SSL Kafka holds subjects %s, want pv-value and VISITS-value", got)
	}
	if err := kafkaClient(t, addr).Ping(timeoutCtx(t)); err == nil {
		t.Fatal("the Kafka answered a client without TLS and SASL: the test proves nothing")
	}
	n.stop()
	n.start()
	if got := subjects(); got != want {
		t.Fatalf("subjects after a restart %s, want %s (read back from _schemas)", got, want)
	}
}

// schemaSubjectsIn reads the _schemas topic at addr to its end and
// returns the subjects its SCHEMA records name.
func schemaSubjectsIn(t *testing.T, addr string, opts ...kgo.Opt) string {
	t.Helper()
	cl := kafkaClient(t, addr, append(opts, kgo.ConsumeTopics("_schemas"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))...)
	ends, err := kadm.NewClient(cl).ListEndOffsets(timeoutCtx(t), "_schemas")
	if err != nil || ends.Error() != nil {
		t.Fatalf("end offsets of _schemas: %v %v", err, ends.Error())
	}
	end, _ := ends.Lookup("_schemas", 0)
	var subjects []string
	for read := int64(0); read < end.Offset; {
		fs := cl.PollFetches(timeoutCtx(t))
		if err := fs.Err(); err != nil {
			t.Fatalf("reading _schemas over SASL_SSL: %v", err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			read = r.Offset + 1
			var key struct{ Keytype, Subject string }
			if json.Unmarshal(r.Key, &key) == nil && key.Keytype == "SCHEMA" {
				subjects = append(subjects, key.Subject)
			}
		})
	}
	sort.Strings(subjects)
	return fmt.Sprint(slices.Compact(subjects))
}
