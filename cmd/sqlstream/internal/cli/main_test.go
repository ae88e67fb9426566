package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestMain pins what the command line prints and returns for usage, help
// and configuration errors; none of these start anything.
func TestMainUsage(t *testing.T) {
	datadriven.RunTest(t, "testdata/main", func(t *testing.T, d *datadriven.TestData) string {
		var svc Services = &fakeServices{t: t}
		switch d.Cmd {
		case "run":
		case "run-with-tests":
			svc = &fakeTestRunner{fakeServices{t: t}}
		default:
			d.Fatalf(t, "unknown command %s", d.Cmd)
		}
		return runMain(d.CmdArgs, svc)
	})
}

func runMain(cmdArgs []datadriven.CmdArg, svc Services) string {
	var args []string
	for _, a := range cmdArgs {
		args = append(args, a.String())
	}
	var out, errOut bytes.Buffer
	code := Main(args, Stdio{In: strings.NewReader(""), Out: &out, Err: &errOut}, svc)
	return fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", code, out.String(), errOut.String())
}

func TestVersion(t *testing.T) {
	var out bytes.Buffer
	code := Main([]string{"version"}, Stdio{Out: &out, Err: io.Discard}, &fakeServices{t: t})
	if code != 0 || !strings.HasPrefix(out.String(), "sqlstream ") || !strings.Contains(out.String(), " go1.") {
		t.Fatalf("version: exit %d, output %q", code, out.String())
	}
}

// fakeTestRunner is a Services that also runs `sqlstream test`.
type fakeTestRunner struct{ fakeServices }

func (f *fakeTestRunner) RunTests(args []string, stdout, _ io.Writer) int {
	fmt.Fprintf(stdout, "test runner got %q\n", args)
	return 3
}

var _ TestRunner = (*fakeTestRunner)(nil)

func TestREPLCommandPassesFlags(t *testing.T) {
	history := t.TempDir() + "/sub/history"
	svc := &fakeServices{t: t, repl: func(_ context.Context, c REPLConfig) error {
		if c.ServerURL != "http://10.1.2.3:8088" || c.HistoryFile != history {
			return fmt.Errorf("REPL config %+v", c)
		}
		return nil
	}}
	args := []string{"repl", "--server", "http://10.1.2.3:8088", "--history", history}
	var errOut bytes.Buffer
	if code := Main(args, Stdio{Out: io.Discard, Err: &errOut}, svc); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
}
