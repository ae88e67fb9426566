package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBinaryVersion(t *testing.T) {
	t.Parallel()
	code, out, errOut := runBinary(t, "version")
	if code != 0 || !strings.HasPrefix(out, "sqlstream ") {
		t.Fatalf("sqlstream version: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestBinaryHelpListsEveryFlag: --help documents each flag with its
// default.
func TestBinaryHelpListsEveryFlag(t *testing.T) {
	t.Parallel()
	code, out, _ := runBinary(t, "server", "--help")
	if code != 0 {
		t.Fatalf("sqlstream server --help: exit %d", code)
	}
	for _, want := range []string{
		"--listen ADDR", "(default 127.0.0.1:8088)",
		"--bootstrap-servers HOSTS",
		"--broker-listen ADDR", "(default 127.0.0.1:9092)",
		"--schema-registry-listen ADDR", "(default 127.0.0.1:8081)",
		"--schema-registry-url URL", "--schema-registry-topic TOPIC", "(default _schemas)",
		"--data-dir DIR", "(default ./sqlstream-data)",
		"--service-id ID", "(default default_)",
		"--config FILE",
		"--log-level LEVEL", "(default info)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--help lacks %q:\n%s", want, out)
		}
	}
}

// TestBinaryBadConfigExits2: configuration is validated before anything
// starts; errors name the file and line and exit with code 2.
func TestBinaryBadConfigExits2(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "app.properties")
	if err := os.WriteFile(cfg, []byte("ksql.service.id=svc_\njust-a-key\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dataDir := filepath.Join(dir, "data")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"server", "--config", cfg, "--data-dir", dataDir}, "app.properties:2"},
		{[]string{"server", "--listen", "nowhere", "--data-dir", dataDir}, `--listen: "nowhere" is not host:port`},
		{[]string{"--no-such-flag"}, "flag provided but not defined"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
	} {
		code, _, errOut := runBinary(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("sqlstream %s: exit %d, stderr %q; want exit 2 mentioning %q",
				strings.Join(tc.args, " "), code, errOut, tc.want)
		}
	}
	if _, err := os.Stat(dataDir); !os.IsNotExist(err) {
		t.Errorf("a bad configuration created the data directory (%v)", err)
	}
}

// TestCombinedModeRunsPipedScript: `sqlstream` with a piped script runs
// the statements through its REPL, exits 0 at end of input, and keeps its
// logs in the data directory instead of the terminal.
func TestCombinedModeRunsPipedScript(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	script := "CREATE STREAM s1 (id INT KEY, v VARCHAR) WITH (KAFKA_TOPIC='s1', VALUE_FORMAT='JSON', PARTITIONS=1);\nSHOW STREAMS;\n"
	code, out, errOut := runBinaryInput(t, script,
		"--listen", "127.0.0.1:0", "--broker-listen", "127.0.0.1:0", "--schema-registry-listen", "127.0.0.1:0", "--data-dir", dataDir)
	if code != 0 || !strings.Contains(out, "S1") || !strings.Contains(out, "s1") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if strings.Contains(out+errOut, "level=") {
		t.Fatalf("combined mode logged to the terminal:\n%s%s", out, errOut)
	}
	logs, err := os.ReadFile(filepath.Join(dataDir, "sqlstream.log"))
	if err != nil || !strings.Contains(string(logs), "embedded kafka broker started") {
		t.Fatalf("log file: %v\n%s", err, logs)
	}
}
