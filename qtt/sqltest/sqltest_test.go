package sqltest_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlstream/sqlstream/qtt"
	"github.com/sqlstream/sqlstream/qtt/driver"
	"github.com/sqlstream/sqlstream/qtt/rest"
	"github.com/sqlstream/sqlstream/qtt/sqltest"
)

// TestSQLTests runs `sqlstream test` over SQL test files on the
// in-memory engine:
//
//	file name=F    writes the input to F in a temporary folder
//	run            runs qtt.Main with one argument per input line ($TMP
//	               is the folder) and prints stdout, stderr and the exit
//	               code
func TestSQLTests(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		tmp := t.TempDir()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "file":
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
			case "run":
				return runMain(tmp, d.Input)
			}
			return fmt.Sprintf("unknown command %q", d.Cmd)
		})
	})
}

func runMain(tmp, input string) string {
	var args []string
	for _, line := range strings.Split(input, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			args = append(args, strings.ReplaceAll(line, "$TMP", tmp))
		}
	}
	var stdout, stderr bytes.Buffer
	code := qtt.Main(args, &stdout, &stderr, driver.New, []qtt.Format{sqltest.Format{}, rest.Format{}})
	out := strings.ReplaceAll(stdout.String(), tmp, "$TMP")
	if stderr.Len() > 0 {
		out += "stderr: " + strings.ReplaceAll(stderr.String(), tmp, "$TMP")
	}
	return out + fmt.Sprintf("exit: %d\n", code)
}
