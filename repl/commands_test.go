package repl

import (
	"bytes"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runPiped(t *testing.T, url, script string) (string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := Run(t.Context(), Config{ServerURL: url, Stdin: io.NopCloser(strings.NewReader(script)),
		Stdout: &out, Stderr: &errOut, Width: 60})
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String()
}

// SERVER prints the current server, switches to another one (later
// statements go there), and rejects a URL without a scheme.
func TestServerCommand(t *testing.T) {
	first, second := newFakeServer(), newFakeServer()
	srv1, srv2 := httptest.NewServer(first), httptest.NewServer(second)
	defer srv1.Close()
	defer srv2.Close()
	out, errOut := runPiped(t, srv1.URL, "server\nserver "+srv2.URL+"\nSHOW STREAMS;\nserver localhost:1\nSERVER\n")
	want := srv1.URL + "\nServer now: " + srv2.URL + "\nServer v0.29.0, status RUNNING\n"
	if !strings.HasPrefix(out, want) || !strings.HasSuffix(out, "\n"+srv2.URL+"\n") {
		t.Fatalf("stdout:\n%s\nwant it to start with:\n%s", out, want)
	}
	if !strings.Contains(errOut, "Server URL must begin with protocol (e.g., http:// or https://): localhost:1") {
		t.Fatalf("stderr: %q", errOut)
	}
	if got := second.takeLog(); len(got) != 1 || got[0] != "/ksql SHOW STREAMS;" {
		t.Fatalf("second server got %q", got)
	}
	if got := first.takeLog(); len(got) != 0 {
		t.Fatalf("first server got %q after the switch", got)
	}
}

// SPOOL copies the input lines (after "ksql> ") and their output and
// errors to a file until SPOOL OFF; a quoted path may hold blanks.
func TestSpoolCommand(t *testing.T) {
	f := newFakeServer()
	srv := httptest.NewServer(f)
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "my spool.txt")
	out, _ := runPiped(t, srv.URL, "SPOOL '"+path+"'\nSHOW STREAMS;\nDROP STREAM NOPE;\nspool off\nSHOW STREAMS;\n")
	if !strings.Contains(out, "Session will be spooled to "+path+"\nEnter SPOOL OFF to disable\n") ||
		!strings.Contains(out, "Spool written to "+path+"\n") {
		t.Fatalf("stdout:\n%s", out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{"ksql> SHOW STREAMS;\n", " PAGEVIEWS ", "ksql> DROP STREAM NOPE;\nSource NOPE does not exist.\n", "ksql> spool off\n"} {
		if !strings.Contains(got, want) {
			t.Fatalf("spool file lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "PAGEVIEWS") != 1 {
		t.Fatalf("the statement after SPOOL OFF reached the file:\n%s", got)
	}
}
