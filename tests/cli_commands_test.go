package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// `sqlstream version` prints the version the server reports in /info:
// the one `make build` links (internal/version.buildVersion), not the
// devel fallback.
func TestVersionMatchesServerInfo(t *testing.T) {
	code, out, errOut := runBinary(t, "version")
	fields := strings.Fields(out)
	if code != 0 || len(fields) < 2 || fields[0] != "sqlstream" {
		t.Fatalf("version: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if strings.Contains(fields[1], "-devel") {
		t.Fatalf("sqlstream version says %q: the Makefile's -X flag did not link internal/version.buildVersion", fields[1])
	}
	n := startNode(t)
	status, body := n.get("/info")
	var info struct {
		KsqlServerInfo struct{ Version string } `json:"KsqlServerInfo"`
	}
	if err := json.Unmarshal(body, &info); status != 200 || err != nil {
		t.Fatalf("/info: %d %s (%v)", status, body, err)
	}
	if info.KsqlServerInfo.Version != fields[1] || strings.Contains(out, "(devel)") {
		t.Fatalf("sqlstream version says %q, /info says %q", fields[1], info.KsqlServerInfo.Version)
	}
}

// `sqlstream test --help` is in the other subcommands' style: usage on
// stdout, "--name ARG" flags, exit 0; a bad flag points at --help.
func TestTestHelpFlagStyle(t *testing.T) {
	code, out, errOut := runBinary(t, "test", "--help")
	for _, want := range []string{"Usage: sqlstream test [flags] PATH…", "\nFlags:\n", "\n  --sql-file FILE (or -s FILE)\n", "\n  --timeout DURATION\n        time limit of one variant (default 30s)\n"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("test --help: exit %d, stdout lacks %q:\n%s\nstderr: %s", code, want, out, errOut)
		}
	}
	if strings.Contains(out, "\n  -sql-file string") || errOut != "" {
		t.Fatalf("test --help is in the flag package's default style or wrote to stderr:\n%s\nstderr: %s", out, errOut)
	}
	code, _, errOut = runBinary(t, "test", "--bogus")
	if code != 2 || !strings.Contains(errOut, "-bogus (see --help)") {
		t.Fatalf("test --bogus: exit %d, stderr %q", code, errOut)
	}
}

// The ksql CLI's own commands work on a terminal without a semicolon:
// version, help, output, server, spool, run script, history, clear.
func TestREPLCommandsOnATerminal(t *testing.T) {
	_, out, _ := runBinary(t, "version")
	dir := t.TempDir()
	spool, script := filepath.Join(dir, "spool.txt"), filepath.Join(dir, "s.sql")
	if err := os.WriteFile(script, []byte("SHOW STREAMS;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, term, exited := startOnTerminal(t)
	term.expect(t, "ksql> ")
	for _, step := range [][2]string{
		{"version", "Version: " + strings.Fields(out)[1] + "\r\n"},
		{"HELP", "\tShow this message."},
		{"output JSON", "Output format set to JSON"},
		{"output", "Output format: JSON"},
		{"Output TABULAR", "Output format set to TABULAR"},
		{"server", "\nhttp://127.0.0.1:"},
		{"spool " + spool, "Session will be spooled to " + spool},
		{"SHOW TOPICS;", "Kafka Topic"},
		{"spool off", "Spool written to " + spool},
		{"run script '" + script + "'", "KSQL_PROCESSING_LOG"},
		{"history", "   1: version\r\n"},
		{"clear", "\x1b[H\x1b[2J"},
	} {
		term.send(t, step[0]+"\r")
		term.expect(t, step[1])
		term.expect(t, "ksql> ")
	}
	term.send(t, "exit\r")
	waitExit(t, exited, term)
	b, err := os.ReadFile(spool)
	if err != nil || !strings.Contains(string(b), "ksql> SHOW TOPICS;\n") || !strings.Contains(string(b), "Kafka Topic") {
		t.Fatalf("spool file (%v):\n%s", err, b)
	}
}

// `make build` (what `make run` does first) says what it is doing: a
// first line before the compiler starts, a line per 25 packages compiled
// on a cold cache, and a last line naming the binary; a failing build
// exits non-zero with go's message shown, not swallowed by the filter.
func TestMakeBuildShowsProgress(t *testing.T) {
	binary(t)
	out := sqlstreamBinary.out
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "building ") ||
		!strings.HasPrefix(lines[len(lines)-1], "built "+sqlstreamBinary.path+" (") {
		t.Fatalf("make build printed:\n%s", out)
	}
	cmd := exec.Command("make", "--no-print-directory", "build", "BIN="+filepath.Join(t.TempDir(), "never"))
	cmd.Dir = repoRoot(t)
	cmd.Env = append(os.Environ(), "GOFLAGS=-bogus-flag")
	failed, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(failed), "bogus-flag") || strings.Contains(string(failed), "built ") {
		t.Fatalf("make build with a bad flag: %v\n%s", err, failed)
	}
}
