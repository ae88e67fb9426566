package console

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBundleIsBuiltFromSources: dist/SOURCES.sha256, written by the
// build, names exactly the files of web/ (src/, the package files, the
// build script) with their current digests, so a source change that was
// not rebuilt with `make console` (or a hand-edited bundle's sources)
// fails here rather than shipping a stale console.
func TestBundleIsBuiltFromSources(t *testing.T) {
	f, err := os.Open(filepath.Join("dist", "SOURCES.sha256"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var listed []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("SOURCES.sha256: bad line %q", sc.Text())
		}
		listed = append(listed, name)
		body, err := os.ReadFile(filepath.Join("web", name))
		if err != nil {
			t.Errorf("the bundle was built from web/%s, which is gone (run make console): %v", name, err)
			continue
		}
		if got := sha256.Sum256(body); hex.EncodeToString(got[:]) != sum {
			t.Errorf("web/%s changed since the bundle was built: run make console and commit console/dist", name)
		}
	}
	srcs, err := os.ReadDir(filepath.Join("web", "src"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range srcs {
		if name := "src/" + e.Name(); !slices.Contains(listed, name) {
			t.Errorf("web/%s is not in the bundle: run make console and commit console/dist", name)
		}
	}
}
