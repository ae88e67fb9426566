package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// TestServerWritesCPUProfile runs the server with --cpu-profile until a
// signal stops it and reads the file back as a pprof profile: gzip'd
// protobuf whose string table names the CPU sample type.
func TestServerWritesCPUProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	s := testSettings(t)
	s.CPUProfile = path
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var stderr syncBuffer
	go func() { done <- runServer(ctx, s, &fakeServices{t: t}, Stdio{Err: &stderr}) }()
	waitFor(t, func() bool { return strings.Contains(stderr.String(), "sqlstream ready") })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("runServer: %v", err)
	}
	strs := profileStrings(t, path)
	for _, want := range []string{"samples", "count", "cpu", "nanoseconds"} {
		if !strs[want] {
			t.Errorf("profile's string table lacks %q: %v", want, strs)
		}
	}
}

// TestCPUProfileUnwritableStopsServer: a --cpu-profile the process
// cannot create is the user's to fix, and nothing is left serving.
func TestCPUProfileUnwritableStopsServer(t *testing.T) {
	s := testSettings(t)
	s.CPUProfile = filepath.Join(t.TempDir(), "missing", "cpu.pprof")
	f := &fakeServices{t: t}
	err := runServer(context.Background(), s, f, Stdio{Err: &syncBuffer{}})
	if err == nil || !strings.Contains(err.Error(), "--cpu-profile") {
		t.Fatalf("runServer error %v, want one naming --cpu-profile", err)
	}
	if got := f.log(); got != "start-stack shutdown-stack(broker-up)" {
		t.Fatalf("lifecycle %q, want the stack shut down", got)
	}
}

// profileStrings parses a pprof file (gzip'd profile.proto) and returns
// its string table (field 6).
func profileStrings(t *testing.T, path string) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s is not gzip'd: %v", path, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	strs := map[string]bool{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatalf("%s: bad protobuf tag: %v", path, protowire.ParseError(n))
		}
		b = b[n:]
		if num == 6 && typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				t.Fatalf("%s: bad string: %v", path, protowire.ParseError(m))
			}
			strs[string(v)] = true
			b = b[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			t.Fatalf("%s: bad field %d: %v", path, num, protowire.ParseError(m))
		}
		b = b[m:]
	}
	return strs
}
