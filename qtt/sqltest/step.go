package sqltest

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/sqlstream/sqlstream/sql/script"
)

// stepKind is what a step of a test does.
type stepKind uint8

const (
	// stepStatement runs on the engine.
	stepStatement stepKind = iota
	// stepSession is SET, UNSET, DEFINE or UNDEFINE: it runs on the
	// engine and then goes before every later statement of the test.
	stepSession
	// stepAssertValues is ASSERT VALUES: the next record of a source.
	stepAssertValues
	// stepAssertNull is ASSERT NULL VALUES … KEY (…): the next record
	// must be a tombstone.
	stepAssertNull
	// stepAssertSource is ASSERT STREAM or ASSERT TABLE.
	stepAssertSource
	// stepBroken is a step that could not be read (a RUN SCRIPT whose
	// file is missing): it fails with err when reached.
	stepBroken
)

// step is one statement of a test.
type step struct {
	kind stepKind
	text string // as written
	line int
	// sql is what the engine's parser reads: text, or for an ASSERT the
	// INSERT or CREATE statement of the same shape.
	sql string
	err error
}

// The ASSERT forms, rewritten into statements of the same shape: ASSERT
// VALUES into INSERT INTO … VALUES, ASSERT NULL VALUES … KEY (…) into
// INSERT INTO … VALUES (…), ASSERT STREAM|TABLE into CREATE. The
// replacement keeps the prefix's length so that positions in errors stay
// those of the test file.
var (
	assertValuesRe = regexp.MustCompile(`(?is)^ASSERT\s+VALUES\s`)
	assertNullRe   = regexp.MustCompile(`(?is)^ASSERT\s+NULL\s+VALUES\s`)
	assertKeyRe    = regexp.MustCompile(`(?is)\)\s*KEY\s*\(`)
	assertSourceRe = regexp.MustCompile(`(?is)^ASSERT(\s+(?:STREAM|TABLE)\s)`)
	runScriptRe    = regexp.MustCompile(`(?is)^RUN\s+SCRIPT\s+'((?:[^']|'')*)'\s*;?\s*$`)
)

// newSteps classifies one statement of the file at path (a RUN SCRIPT
// becomes the steps of its file).
func newSteps(st script.Statement, line int, path string) []step {
	text := st.Text
	s := step{kind: stepStatement, text: text, line: line, sql: text}
	switch {
	case assertNullRe.MatchString(text):
		s.kind = stepAssertNull
		n := len(assertNullRe.FindString(text))
		s.sql = padded("INSERT INTO ", n) + text[n:]
		if loc := assertKeyRe.FindStringIndex(s.sql); loc != nil {
			s.sql = s.sql[:loc[0]] + ") VALUES (" + s.sql[loc[1]:]
		}
	case assertValuesRe.MatchString(text):
		s.kind = stepAssertValues
		n := len(assertValuesRe.FindString(text))
		s.sql = padded("INSERT INTO ", n) + text[n:]
	case assertSourceRe.MatchString(text):
		s.kind = stepAssertSource
		s.sql = "CREATE" + text[len("ASSERT"):]
	case runScriptRe.MatchString(text):
		return runScript(runScriptRe.FindStringSubmatch(text)[1], text, line, path)
	case isSession(text):
		s.kind = stepSession
	}
	return []step{s}
}

// padded is word followed by blanks up to n bytes (word when longer).
func padded(word string, n int) string {
	if n <= len(word) {
		return word
	}
	return word + strings.Repeat(" ", n-len(word))
}

// isSession reports whether the statement changes the test's session.
func isSession(text string) bool {
	switch strings.ToUpper(script.FirstWord(text)) {
	case "SET", "UNSET", "DEFINE", "UNDEFINE":
		return true
	}
	return false
}

// runScript reads the statements of a RUN SCRIPT. ksqlDB's runner looks
// for the script on its classpath, then in the file system; here a path
// is looked for beside the test file and in the folders above it (a
// leading / names the root of that tree), then as given. A script that
// is not found is a step that fails with the places looked at.
func runScript(name, text string, line int, path string) []step {
	src, err := readScript(strings.ReplaceAll(name, "''", "'"), path)
	if err != nil {
		return []step{{kind: stepBroken, text: text, line: line, err: err}}
	}
	var out []step
	for _, st := range script.All(src) {
		for _, s := range newSteps(st, line, path) {
			s.text = fmt.Sprintf("%s (from RUN SCRIPT '%s')", s.text, name)
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return []step{{kind: stepBroken, text: text, line: line, err: fmt.Errorf("RUN SCRIPT '%s': the script has no statements", name)}}
	}
	return out
}

func readScript(name, testFile string) (string, error) {
	var first string
	rel := strings.TrimPrefix(name, "/")
	abs, err := filepath.Abs(testFile)
	if err != nil {
		return "", fmt.Errorf("RUN SCRIPT '%s': %w", name, err)
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, rel)
		first = cmp.Or(first, p)
		if b, err := os.ReadFile(p); err == nil {
			return string(b), nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("RUN SCRIPT '%s': %w", name, err)
		}
		if parent := filepath.Dir(dir); parent == dir {
			break
		}
	}
	if b, err := os.ReadFile(name); err == nil {
		return string(b), nil
	}
	return "", fmt.Errorf("RUN SCRIPT '%s': no such file beside the test file (%s), in the folders above it, nor at %s", name, first, name)
}
