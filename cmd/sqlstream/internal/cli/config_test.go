package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/sqlstream/sqlstream/internal/gcpacing"
)

// TestConfig pins how flags and a config file (the test input, when not
// empty, passed as --config app.properties) resolve into Settings, for
// the server (resolve) and for `sqlstream broker` (resolve-broker). The
// machine has 8 GiB (testdata/machine) and Go's runtime runs at its
// defaults, unless the command gives GOGC or GOMEMLIMIT (in bytes) as
// the runtime would have read them from the environment (gogc=50,
// gomemlimit=1073741824).
func TestConfig(t *testing.T) {
	datadriven.RunTest(t, "testdata/config", func(t *testing.T, d *datadriven.TestData) string {
		opts, render := serverOptions(), renderSettings
		switch d.Cmd {
		case "resolve":
		case "resolve-broker":
			opts, render = brokerOptions(), renderBrokerSettings
		default:
			d.Fatalf(t, "unknown command %s", d.Cmd)
		}
		dir := t.TempDir()
		var args []string
		rt := gcpacing.Runtime{Percent: gcpacing.GoPercent, Limit: gcpacing.NoLimit}
		for _, a := range d.CmdArgs {
			switch a.Key {
			case "gogc":
				d.ScanArgs(t, "gogc", &rt.Percent)
				rt.PercentEnv = true
			case "gomemlimit":
				d.ScanArgs(t, "gomemlimit", &rt.Limit)
				rt.LimitEnv = true
			default:
				args = append(args, a.String())
			}
		}
		if d.Input != "" {
			path := filepath.Join(dir, "app.properties")
			if err := os.WriteFile(path, []byte(d.Input+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			args = append([]string{"--config", path}, args...)
		}
		out := resolveArgs(args, opts, render, rt)
		return strings.ReplaceAll(out, dir+string(filepath.Separator), "")
	})
}

func resolveArgs(args []string, opts []option, render func(Settings) string, rt gcpacing.Runtime) string {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	sf := newOptionFlags(fs, opts)
	sf.runtime, sf.machine = func() gcpacing.Runtime { return rt }, os.DirFS("testdata/machine")
	if err := fs.Parse(args); err != nil {
		return "error: " + err.Error() + "\n"
	}
	s, err := sf.resolve()
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	return render(s)
}

func renderBrokerSettings(s Settings) string {
	return fmt.Sprintf("broker-listen: %s\ndata-dir: %s\nbroker-dir: %s\nlog-level: %s\nlog-format: %s\n",
		s.BrokerListen, s.DataDir, s.BrokerDir(), s.LogLevel, s.LogFormat)
}

func renderSettings(s Settings) string {
	var b strings.Builder
	fmt.Fprintf(&b, "listen: %s\n", s.Listen)
	fmt.Fprintf(&b, "bootstrap: %v (embedded=%v)\n", s.Bootstrap, s.Embedded())
	fmt.Fprintf(&b, "broker-listen: %s\n", s.BrokerListen)
	fmt.Fprintf(&b, "data-dir: %s\n", s.DataDir)
	fmt.Fprintf(&b, "service-id: %s\n", s.ServiceID)
	fmt.Fprintf(&b, "log-level: %s\n", s.LogLevel)
	fmt.Fprintf(&b, "log-format: %s\n", s.LogFormat)
	if s.SchemaRegistryListen == "" {
		fmt.Fprintf(&b, "schema-registry: not embedded\n")
	} else {
		fmt.Fprintf(&b, "schema-registry: %s topic %s\n", s.SchemaRegistryListen, s.SchemaRegistryTopic)
	}
	fmt.Fprintf(&b, "gc-percent: %s (%s)\n", s.Pacing.PercentText(), s.Pacing.PercentFrom)
	fmt.Fprintf(&b, "memory-limit: %s (%s)\n", s.Pacing.LimitText(), s.Pacing.LimitFrom)
	for _, k := range sortedKeys(s.Properties) {
		fmt.Fprintf(&b, "property %s=%s\n", k, s.Properties[k])
	}
	return b.String()
}
