package tests

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestConsoleKeywordsAreTheREPLs: the web console's editor highlights
// and completes the keywords the REPL completes (repl/complete.go's
// keywordList), GLOBAL too; the REPL's type names are the editor's TYPES
// and its EXIT and QUIT are the REPL's own commands. A keyword added to
// one and not the other fails here: add it to console/web/src/editor.js
// (then make console) or to the REPL's list.
func TestConsoleKeywordsAreTheREPLs(t *testing.T) {
	repl := backquoted(t, "../repl/complete.go", "keywordList")
	editor := backquoted(t, "../console/web/src/editor.js", "KEYWORDS")
	types := regexp.MustCompile(`const TYPES = '([^']*)'`).FindStringSubmatch(read(t, "../console/web/src/editor.js"))
	if types == nil {
		t.Fatal("console/web/src/editor.js has no TYPES")
	}
	want := words(repl)
	got := append(words(editor), words(types[1])...)
	got = append(got, "EXIT", "QUIT")
	want = append(want, "GLOBAL")
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(slices.Compact(got), slices.Compact(want)) {
		t.Errorf("the editor's keywords and types:\n%v\nthe REPL's and GLOBAL:\n%v", got, want)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// backquoted is the back-quoted string assigned to name in file.
func backquoted(t *testing.T, path, name string) string {
	t.Helper()
	m := regexp.MustCompile(`const ` + name + ` = ` + "`([^`]*)`").FindStringSubmatch(read(t, path))
	if m == nil {
		t.Fatalf("%s has no const %s", path, name)
	}
	return m[1]
}

func words(s string) []string { return strings.Fields(strings.ToUpper(s)) }
