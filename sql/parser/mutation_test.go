package parser

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// TestQTTMutations parses truncated and holed copies of a sample of the
// QTT statements: the parser must never panic, and every error must be a
// *sqlerr.Error whose line:column, offset and near token agree with the
// text.
func TestQTTMutations(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(qttDir, "*.json"))
	if len(files) == 0 {
		t.Skip("QTT corpus not present")
	}
	k := 0
	for _, f := range files {
		for _, c := range readQTT(t, f) {
			for _, s := range c.Statements {
				if k++; k%10 != 0 {
					continue
				}
				for cut := 0; cut <= len(s); cut += 11 {
					checkMutation(t, s[:cut])
					checkMutation(t, s[:cut]+s[min(len(s), cut+4):])
				}
			}
		}
	}
}

func checkMutation(t *testing.T, s string) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("panic on %q: %v", s, r)
		}
	}()
	_, err := Parse(s)
	if err == nil {
		return
	}
	var se *sqlerr.Error
	if !errors.As(err, &se) || se.SQL != s || se.Pos.Line < 1 || se.Pos.Offset > len(s) {
		t.Errorf("bad error for %q: %#v", s, err)
		return
	}
	before := s[:se.Pos.Offset]
	line := strings.Count(before, "\n") + 1
	col := utf8.RuneCountInString(before[strings.LastIndexByte(before, '\n')+1:]) + 1
	if line != se.Pos.Line || col != se.Pos.Col {
		t.Errorf("position of %q is %d:%d, want %d:%d", s, se.Pos.Line, se.Pos.Col, line, col)
	}
	if !strings.HasPrefix(s[se.Pos.Offset:], se.Near) {
		t.Errorf("near %q is not at offset %d of %q", se.Near, se.Pos.Offset, s)
	}
}
