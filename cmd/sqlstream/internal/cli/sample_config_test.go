package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/runtime/props"
)

// sampleConfig is the documented sample configuration file.
const sampleConfig = "../../../../config/sqlstream.properties.example"

// TestSampleConfig keeps config/sqlstream.properties.example complete:
// every command-line option and every property of the engine's table,
// each with its meaning and default, as the text sampleConfigText builds
// (go test -run TestSampleConfig -args -rewrite regenerates it). Then the
// file is used as a user would, with every commented-out key set to its
// default, and must resolve without an error.
func TestSampleConfig(t *testing.T) {
	want := sampleConfigText()
	if f := flag.Lookup("rewrite"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(sampleConfig, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(sampleConfig)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s is out of date with the options and the property table: run go test ./cmd/sqlstream/internal/cli -run TestSampleConfig -args -rewrite and read the diff", sampleConfig)
	}
	path := filepath.Join(t.TempDir(), "all.properties")
	if err := os.WriteFile(path, uncommentDefaults(got), 0o644); err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	sf := newServerFlags(fs)
	if err := fs.Parse([]string{"--config", path}); err != nil {
		t.Fatal(err)
	}
	if _, err := sf.resolve(); err != nil {
		t.Fatalf("the sample config with every default set: %v", err)
	}
}

// defaultLine is a commented-out key with its default value.
var defaultLine = regexp.MustCompile(`(?m)^#([a-z][a-z0-9._-]*=.+)$`)

func uncommentDefaults(text []byte) []byte {
	return defaultLine.ReplaceAll(text, []byte("$1"))
}

func sampleConfigText() string {
	var b strings.Builder
	b.WriteString(`# Sample sqlstream configuration: a Java-properties file with ksqlDB's keys.
#
#   sqlstream server --config config/sqlstream.properties
#
# Every key sqlstream knows is listed, commented out, with its default;
# uncomment a line to change it. Flags given on the command line override
# the file. An unknown key or a bad value stops the server before it
# starts, naming the line. Keys marked "server" may only be set here; the
# others are also defaults that a statement may override (SET, or a
# request's streamsProperties). This file is generated and checked by
# TestSampleConfig in cmd/sqlstream/internal/cli.

# --- Command-line options (flag and key are the same setting) ---
`)
	options := map[string]bool{}
	for _, o := range serverOptions() {
		options[o.key] = true
		fmt.Fprintf(&b, "\n# --%s: %s.\n", o.flag, o.usage)
		writeDefault(&b, o.key, o.def, "")
	}
	b.WriteString("\n# --- Engine properties ---\n")
	for _, p := range props.Docs() {
		if options[p.Name] {
			continue
		}
		kind := p.Type
		switch {
		case p.Inert:
			kind += ", accepted for ksqlDB compatibility, no effect"
		case p.Fixed:
			kind += ", server"
		}
		fmt.Fprintf(&b, "\n# %s [%s].\n", p.Doc, kind)
		writeDefault(&b, p.Name, p.Default, p.DefaultText)
	}
	return b.String()
}

func writeDefault(b *strings.Builder, key, def, text string) {
	switch {
	case text != "":
		fmt.Fprintf(b, "# Default: %s.\n#%s=\n", text, key)
	case def == "":
		fmt.Fprintf(b, "# No default.\n#%s=\n", key)
	default:
		fmt.Fprintf(b, "#%s=%s\n", key, def)
	}
}
