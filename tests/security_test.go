package tests

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/broker"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestPartitionLimit is issue 9.6: CREATE refuses a topic of more
// partitions than sqlstream.topic.partitions.max (default 1000), naming
// the property; the embedded broker refuses such a topic from any Kafka
// client; the server keeps answering.
func TestPartitionLimit(t *testing.T) {
	t.Parallel()
	if props.MaxPartitions != broker.MaxPartitionsProperty {
		t.Fatalf("engine property %s, broker names %s", props.MaxPartitions, broker.MaxPartitionsProperty)
	}
	n := startNode(t)
	status, body := n.ksql("CREATE STREAM huge (a INT) WITH (KAFKA_TOPIC='huge', VALUE_FORMAT='JSON', PARTITIONS=1000000);", nil)
	if status != 400 || !strings.Contains(fmt.Sprint(body), "at most 1000 partitions (server property sqlstream.topic.partitions.max)") {
		t.Fatalf("PARTITIONS=1000000 with the default limit: %d %v", status, body)
	}
	n.stop()

	n = startNode(t, "--config", writeConfig(t, "sqlstream.topic.partitions.max=4\n"))
	status, body = n.ksql("CREATE STREAM five (a INT) WITH (KAFKA_TOPIC='five', VALUE_FORMAT='JSON', PARTITIONS=5);", nil)
	if status != 400 || !strings.Contains(fmt.Sprint(body), "at most 4 partitions") {
		t.Fatalf("PARTITIONS=5 with a limit of 4: %d %v", status, body)
	}
	n.mustKsql("CREATE STREAM four (a INT) WITH (KAFKA_TOPIC='four', VALUE_FORMAT='JSON', PARTITIONS=4);")
	status, body = n.ksql("CREATE STREAM copy WITH (PARTITIONS=5) AS SELECT * FROM four;", nil)
	if status != 400 || !strings.Contains(fmt.Sprint(body), "at most 4 partitions") {
		t.Fatalf("CREATE AS SELECT with PARTITIONS=5: %d %v", status, body)
	}
	resp, err := kadm.NewClient(kafkaClient(t, n.Kafka)).CreateTopic(timeoutCtx(t), 5, 1, nil, "direct")
	if err == nil {
		err = resp.Err
	}
	if !errors.Is(err, kerr.InvalidPartitions) {
		t.Fatalf("embedded broker created a 5-partition topic: %v", err)
	}
	status, body = n.ksql("SET 'sqlstream.topic.partitions.max'='100';", nil)
	if status == 200 {
		t.Fatalf("a client raised the server's partition limit: %v", body)
	}
	n.mustKsql("DESCRIBE four;")
}

// TestSecretsHidden is issue 9.10: SHOW PROPERTIES prints the values of
// passwords and SASL credentials as ksqlDB does, [hidden], and neither
// the answer nor the log holds them.
func TestSecretsHidden(t *testing.T) {
	t.Parallel()
	n := startNode(t, "--config", writeConfig(t, strings.Join([]string{
		"ssl.keystore.password=hunter2-keystore",
		"ksql.streams.ssl.key.password=hunter2-key",
		`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="hunter2-sasl";`,
		"ssl.keystore.location=/nonexistent/unused.pem",
	}, "\n")+"\n"))
	body := fmt.Sprint(n.mustKsql("SHOW PROPERTIES;"))
	for _, name := range []string{"ksql.streams.ssl.keystore.password", "ksql.streams.ssl.key.password", "ksql.streams.sasl.jaas.config"} {
		if !strings.Contains(body, "name:"+name+" scope:STREAMS value:[hidden]") {
			t.Errorf("SHOW PROPERTIES does not hide %s: %s", name, body)
		}
	}
	if !strings.Contains(body, "value:/nonexistent/unused.pem") {
		t.Errorf("SHOW PROPERTIES hides a location, which is no secret: %s", body)
	}
	if strings.Contains(body+n.Logs(), "hunter2") {
		t.Errorf("a secret is printed:\n%s\n%s", body, n.Logs())
	}
}

// TestReplaceMayNotDropColumns is issue 9.20: CREATE OR REPLACE of a
// source that drops a column is refused with ksqlDB's message and the
// source keeps its columns; adding one at the end is accepted.
func TestReplaceMayNotDropColumns(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	n.mustKsql("CREATE STREAM r (k VARCHAR KEY, a INT, b VARCHAR) WITH (KAFKA_TOPIC='r', VALUE_FORMAT='JSON', PARTITIONS=1);")
	status, body := n.ksql("CREATE OR REPLACE STREAM r (k VARCHAR KEY, a INT) WITH (KAFKA_TOPIC='r', VALUE_FORMAT='JSON');", nil)
	if status != 400 || !strings.Contains(fmt.Sprint(body), "The following columns are changed, missing or reordered: [`B` STRING]") {
		t.Fatalf("dropping column B: %d %v", status, body)
	}
	if d := fmt.Sprint(n.mustKsql("DESCRIBE r;")); !strings.Contains(d, "name:B") {
		t.Fatalf("r lost column B after a refused replace: %s", d)
	}
	n.mustKsql("CREATE OR REPLACE STREAM r (k VARCHAR KEY, a INT, b VARCHAR, c INT) WITH (KAFKA_TOPIC='r', VALUE_FORMAT='JSON');")
}

// TestForeignCommandsRejected is issue 9.13: a statement another Kafka
// client writes into the command topic does not run (it is logged, with
// its offset); commands of a topic that predates signing run, as its
// prefix; the key file is private.
func TestForeignCommandsRejected(t *testing.T) {
	t.Parallel()
	const topic = "_default__command_topic"
	br := startBrokerProcess(t)
	createTopic(t, br.Kafka, topic, 1)
	// Written before signing: the first start accepts it, and its chain
	// start ends the unsigned prefix.
	produce(t, br.Kafka, topic, "0", `{"seq":0,"statement":"CREATE STREAM legacy (a INT) WITH (KAFKA_TOPIC='legacy', VALUE_FORMAT='JSON', PARTITIONS=1);"}`)
	n := startServerOn(t, br.Kafka)
	n.mustKsql("DESCRIBE legacy;")
	if !strings.Contains(n.Logs(), "predates command signing") {
		t.Errorf("no warning about the unsigned legacy command:\n%s", n.Logs())
	}

	cl := kafkaClient(t, br.Kafka)
	evil := &kgo.Record{Topic: topic, Key: []byte("7"),
		Value: []byte(`{"seq":7,"statement":"CREATE STREAM evil (a INT) WITH (KAFKA_TOPIC='evil', VALUE_FORMAT='JSON', PARTITIONS=1);"}`)}
	if err := cl.ProduceSync(timeoutCtx(t), evil).FirstErr(); err != nil {
		t.Fatal(err)
	}
	n.mustKsql("CREATE STREAM good (a INT) WITH (KAFKA_TOPIC='good', VALUE_FORMAT='JSON', PARTITIONS=1);")
	n.restart()
	n.mustKsql("DESCRIBE legacy; DESCRIBE good;")
	if status, body := n.ksql("DESCRIBE evil;", nil); status == 200 {
		t.Errorf("a foreign command ran: %v", body)
	}
	if !regexp.MustCompile(fmt.Sprintf(`rejecting a command record: it is not executed.*offset=%d .*no sqlstream-signature header`, evil.Offset)).MatchString(n.Logs()) {
		t.Errorf("the foreign command is not logged:\n%s", n.Logs())
	}
	fi, err := os.Stat(filepath.Join(n.dataDir, "command-topic.key"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", fi.Mode().Perm())
	}
}

// TestBasicAuthentication is issue 9.11 through the binary: with
// authentication.method=BASIC, a request without credentials or with a
// wrong password gets 401 and ksqlDB's body, a user of the users file is
// served, and the REPL passes credentials from --user/--password or the
// URL's userinfo. Listening beyond loopback without authentication logs a
// warning.
func TestBasicAuthentication(t *testing.T) {
	t.Parallel()
	users := filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(users, []byte("alice: wonderland,admin\nbob: builder,guest\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	n := startNode(t, "--config", writeConfig(t, "authentication.method=BASIC\nauthentication.roles=admin\nsqlstream.authentication.users.file="+users+"\n"))
	send := func(user, pass string) (int, string) {
		req := n.newRequest(context.Background(), "/ksql", "application/json", map[string]any{"ksql": "SHOW STREAMS;"})
		if user != "" {
			req.SetBasicAuth(user, pass)
		}
		resp, err := httpClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, c := range [][2]string{{"", ""}, {"alice", "nope"}, {"bob", "builder"}} {
		status, body := send(c[0], c[1])
		if status != 401 || !strings.Contains(body, `"error_code":40100,"message":"Unauthorized"`) {
			t.Errorf("user %q password %q: %d %s, want 401", c[0], c[1], status, body)
		}
	}
	if status, body := send("alice", "wonderland"); status != 200 {
		t.Errorf("alice: %d %s", status, body)
	}
	u := strings.Replace(n.URL, "://", "://alice:wonderland@", 1)
	for _, args := range [][]string{{"--server", u}, {"--server", n.URL, "--user", "alice", "--password", "wonderland"}} {
		code, out, errOut := runBinaryInput(t, "SHOW STREAMS;\n", append([]string{"repl", "--history", filepath.Join(t.TempDir(), "h")}, args...)...)
		if code != 0 || !strings.Contains(out, "Stream Name") || strings.Contains(out+errOut, "wonderland") {
			t.Errorf("repl %v: exit %d\n%s\n%s", args, code, out, errOut)
		}
	}
	_, out, errOut := runBinaryInput(t, "SHOW STREAMS;\n", "repl", "--history", filepath.Join(t.TempDir(), "h"), "--server", n.URL)
	if !strings.Contains(out+errOut, "Unauthorized") {
		t.Errorf("repl without credentials:\n%s\n%s", out, errOut)
	}
	if strings.Contains(n.Logs(), "beyond loopback") {
		t.Errorf("warning on a loopback listener")
	}
	open := startNode(t, "--listen", "0.0.0.0:0")
	if !strings.Contains(open.Logs(), "the HTTP API listens beyond loopback without authentication") {
		t.Errorf("no warning listening on 0.0.0.0 without authentication:\n%s", open.Logs())
	}
}

// TestHTTPSListener is issue 9.11's TLS through the binary:
// listeners=https://… with a PEM certificate and key serves HTTPS that a
// client trusting the CA verifies, and the REPL reaches it with --ca-file.
func TestHTTPSListener(t *testing.T) {
	t.Parallel()
	n, ca, _ := startHTTPSNode(t)
	pool := x509.NewCertPool()
	pemCA, _ := os.ReadFile(ca)
	pool.AppendCertsFromPEM(pemCA)
	cl := &http.Client{Timeout: clientTimeout, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	eventually(t, "HTTPS /healthcheck", func() error {
		resp, err := cl.Get(n.URL + "/healthcheck")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return nil
	})
	if _, err := httpClient().Get(n.URL + "/info"); err == nil {
		t.Errorf("a client without the CA accepted the certificate")
	}
	code, out, errOut := runBinaryInput(t, "SHOW STREAMS;\n", "repl", "--history", filepath.Join(t.TempDir(), "h"), "--server", n.URL, "--ca-file", ca)
	if code != 0 || !strings.Contains(out, "Stream Name") {
		t.Errorf("repl --ca-file: exit %d\n%s\n%s", code, out, errOut)
	}
}

// startHTTPSNode starts a server on an https:// listener with a
// certificate for 127.0.0.1 signed by a test CA, and returns it with the
// CA's and the certificate's PEM files (it does not wait for health: the
// harness's client does not trust the CA).
func startHTTPSNode(t *testing.T) (n *node, ca, cert string) {
	t.Helper()
	dir := t.TempDir()
	ca, cert, key := writeTestCertificates(t, t.TempDir())
	cfg := writeConfig(t, "sqlstream.ssl.certificate.location="+cert+"\nsqlstream.ssl.key.location="+key+"\n")
	n = &node{t: t, dataDir: dir, args: []string{"server", "--listen", "https://127.0.0.1:0",
		"--broker-listen", "127.0.0.1:0", "--schema-registry-listen", "127.0.0.1:0", "--data-dir", dir, "--config", cfg}}
	n.logs, n.exited = &lockedBuffer{}, make(chan error, 1)
	n.cmd = exec.Command(binary(t), n.args...)
	n.cmd.Stdout, n.cmd.Stderr = n.logs, n.logs
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func(cmd *exec.Cmd, exited chan<- error) { exited <- cmd.Wait() }(n.cmd, n.exited)
	t.Cleanup(n.kill)
	n.waitReady()
	if !strings.HasPrefix(n.URL, "https://") {
		t.Fatalf("ready line URL %s is not https", n.URL)
	}
	return n, ca, cert
}

// writeTestCertificates writes a CA and a certificate it signed for
// 127.0.0.1, with its key, as PEM files in dir.
func writeTestCertificates(t *testing.T, dir string) (ca, cert, key string) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &k.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, typ string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return write("ca.pem", "CERTIFICATE", caDER), write("cert.pem", "CERTIFICATE", der), write("key.pem", "PRIVATE KEY", keyDER)
}

// TestKafkaSecurityNeedsExternalKafka: SASL/TLS settings with the
// embedded broker (PLAINTEXT only) fail at start with a clear message.
func TestKafkaSecurityNeedsExternalKafka(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, _, errOut := runBinary(t, "server", "--listen", "127.0.0.1:0", "--broker-listen", "127.0.0.1:0",
		"--schema-registry-listen", "127.0.0.1:0", "--data-dir", dir, "--config", writeConfig(t, "security.protocol=SASL_SSL\n"))
	if code == 0 || !strings.Contains(errOut, "needs an external Kafka") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}
