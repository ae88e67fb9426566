package tests

import (
	"fmt"
	"strings"
	"testing"
)

// TestGCPacingSettings, through the binary: the server's start line
// names the garbage collector's pacing and where each value came from,
// and SHOW PROPERTIES shows the values in force (the limit in bytes). A
// setting wins over GOGC in the environment, GOGC wins over the default
// percent; a client may not SET them; a bad value stops the server
// before it starts, naming the setting.
func TestGCPacingSettings(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		env    []string
		config string
		flags  []string
		// want are the start line's values, and wantShown SHOW
		// PROPERTIES' for sqlstream.gc.percent and sqlstream.memory.limit.
		want      [4]string
		wantShown [2]string
	}{
		{"settings over the environment", []string{"GOGC=150", "GOMEMLIMIT=3GiB"}, "sqlstream.gc.percent=250\n", []string{"--memory-limit", "1GiB"},
			[4]string{"250", "config file *:1: sqlstream.gc.percent", "1.0GiB", "--memory-limit"}, [2]string{"250", "1073741824"}},
		{"the environment over the defaults", []string{"GOGC=150", "GOMEMLIMIT=3GiB"}, "", nil,
			[4]string{"150", "environment GOGC", "3.0GiB", "environment GOMEMLIMIT"}, [2]string{"150", "3221225472"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dataDir := t.TempDir()
			args := append([]string{"--listen", "127.0.0.1:0", "--broker-listen", "127.0.0.1:0",
				"--schema-registry-listen", "127.0.0.1:0", "--data-dir", dataDir}, c.flags...)
			if c.config != "" {
				args = append(args, "--config", writeConfig(t, c.config))
			}
			n := &node{t: t, dataDir: dataDir, args: append([]string{"server"}, args...), env: c.env}
			n.start()
			t.Cleanup(n.kill)
			m := pacingLine.FindStringSubmatch(n.Logs())
			if m == nil {
				t.Fatalf("no pacing start line in:\n%s", n.Logs())
			}
			for i, want := range c.want {
				got := strings.Trim(m[i+1], `"`)
				if before, after, ok := strings.Cut(want, "*"); ok {
					// The config file's path is a temp dir's.
					if !strings.HasPrefix(got, before) || !strings.HasSuffix(got, after) {
						t.Errorf("start line value %d = %q, want %q", i, got, want)
					}
				} else if got != want {
					t.Errorf("start line value %d = %q, want %q", i, got, want)
				}
			}
			shown := fmt.Sprint(n.mustKsql("SHOW PROPERTIES;"))
			for i, name := range []string{"sqlstream.gc.percent", "sqlstream.memory.limit"} {
				if want := "name:" + name + " scope:KSQL value:" + c.wantShown[i] + "]"; !strings.Contains(shown, want) {
					t.Errorf("SHOW PROPERTIES lacks %q", want)
				}
			}
			if status, v := n.ksql("SET 'sqlstream.gc.percent'='50';", nil); status != 400 || !strings.Contains(fmt.Sprint(v), "prohibited by the KSQL server") {
				t.Errorf("SET of the server's GC percent: status %d, body %v", status, v)
			}
		})
	}
	for _, bad := range []struct{ args, want []string }{
		{[]string{"--gc-percent", "fast"}, []string{"--gc-percent", `"fast" is not a percentage`}},
		{[]string{"--memory-limit", "2XB"}, []string{"--memory-limit", `"2XB" is not a size`}},
		{[]string{"--memory-limit", "off", "--gc-percent", "off"}, []string{"would let the heap grow without bound"}},
	} {
		code, _, errOut := runBinary(t, append([]string{"server", "--data-dir", t.TempDir()}, bad.args...)...)
		for _, want := range bad.want {
			if code != 2 || !strings.Contains(errOut, want) {
				t.Errorf("server %v: exit %d, stderr %q; want 2 and %q", bad.args, code, errOut, want)
			}
		}
	}
}
