package rest_test

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
)

// TestRQTTMain runs `sqlstream test` over RQTT files on the real
// in-memory engine (driver.New):
//
//	file name=F    writes the input to F in a temporary folder
//	run            runs qtt.Main (with the REST format) with one argument per input line ($TMP is
//	               the folder) and prints stdout, stderr and the exit code
func TestRQTTMain(t *testing.T) {
	datadriven.Walk(t, "testdata/main", func(t *testing.T, path string) {
		tmp := t.TempDir()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "file":
				var name string
				d.ScanArgs(t, "name", &name)
				if err := os.WriteFile(filepath.Join(tmp, name), []byte(d.Input), 0o644); err != nil {
					t.Fatal(err)
				}
				return ""
			case "run":
				return runRQTT(tmp, d.Input)
			}
			return fmt.Sprintf("unknown command %q", d.Cmd)
		})
	})
}

func runRQTT(tmp, input string) string {
	var args []string
	for _, line := range strings.Split(input, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			args = append(args, strings.ReplaceAll(line, "$TMP", tmp))
		}
	}
	var stdout, stderr bytes.Buffer
	code := qtt.Main(args, &stdout, &stderr, driver.New, []qtt.Format{rest.Format{}})
	out := strings.ReplaceAll(stdout.String(), tmp, "$TMP")
	if stderr.Len() > 0 {
		out += "stderr: " + strings.ReplaceAll(stderr.String(), tmp, "$TMP")
	}
	return out + fmt.Sprintf("exit: %d\n", code)
}
