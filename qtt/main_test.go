package qtt

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestMain_ runs `sqlstream test` end to end over the fake driver:
//
//	file name=F    writes the input to F in a temporary folder
//	run            runs Main with one argument per input line ($TMP is
//	               the folder) and prints stdout, stderr and the exit code
//	cat name=F     prints F with durations zeroed
func TestMainCommand(t *testing.T) {
	datadriven.Walk(t, "testdata/main", func(t *testing.T, path string) {
		tmp := t.TempDir()
		release := make(chan struct{})
		defer close(release)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "file":
				return writeTestFile(t, tmp, d)
			case "run":
				return runMain(tmp, d.Input, newFakeDriver(release))
			case "cat":
				return catFile(t, tmp, d)
			}
			return fmt.Sprintf("unknown command %q", d.Cmd)
		})
	})
}

func writeTestFile(t *testing.T, tmp string, d *datadriven.TestData) string {
	var name string
	d.ScanArgs(t, "name", &name)
	p := filepath.Join(tmp, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(d.Input), 0o644); err != nil {
		t.Fatal(err)
	}
	return ""
}

func runMain(tmp, input string, nd NewDriver) string {
	var args []string
	for _, line := range strings.Split(input, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			args = append(args, strings.ReplaceAll(line, "$TMP", tmp))
		}
	}
	var stdout, stderr bytes.Buffer
	code := Main(args, &stdout, &stderr, nd, nil)
	out := strings.ReplaceAll(stdout.String(), tmp, "$TMP")
	if stderr.Len() > 0 {
		out += "stderr: " + strings.ReplaceAll(stderr.String(), tmp, "$TMP")
	}
	return out + fmt.Sprintf("exit: %d\n", code)
}

var durationRe = regexp.MustCompile(`"durationMs": [0-9.e+-]+`)

func catFile(t *testing.T, tmp string, d *datadriven.TestData) string {
	var name string
	d.ScanArgs(t, "name", &name)
	b, err := os.ReadFile(filepath.Join(tmp, name))
	if err != nil {
		return err.Error() + "\n"
	}
	return durationRe.ReplaceAllString(string(b), `"durationMs": 0`)
}
