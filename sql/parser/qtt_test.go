package parser

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/types"
)

// qttDir holds ksqlDB's query translation tests (JSON), when present.
const qttDir = "/work/shared/conformance/ksql-qtt"

// qttCase is the part of a QTT test the parser cares about.
type qttCase struct {
	Name              string          `json:"name"`
	Statements        []string        `json:"statements"`
	ExpectedException json.RawMessage `json:"expectedException"`
}

// TestQTTCorpus parses every statement of ksqlDB's QTT files and reports
// the pass rate over tests that expect no exception. It fails when the
// rate drops below 97%.
func TestQTTCorpus(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(qttDir, "*.json"))
	if len(files) == 0 {
		t.Skip("QTT corpus not present")
	}
	var total, ok, negTotal, negOK int
	failures := map[string]string{}
	for _, f := range files {
		for _, c := range readQTT(t, f) {
			custom := map[string]*types.Type{}
			lookup := WithTypes(func(name string) (*types.Type, bool) {
				typ, ok := custom[name]
				return typ, ok
			})
			for _, s := range c.Statements {
				stmts, err := Parse(s, lookup)
				for _, st := range stmts {
					if ct, ok := st.(*ast.CreateType); ok {
						custom[ct.Name] = ct.Type
					}
				}
				if err == nil {
					roundTrip(t, stmts)
				}
				if len(c.ExpectedException) > 0 {
					negTotal++
					if err == nil {
						negOK++
					}
					continue
				}
				total++
				if err == nil {
					ok++
				} else {
					failures[s] = err.Error()
				}
			}
		}
	}
	logFailures(t, failures)
	rate := float64(ok) / float64(total) * 100
	t.Logf("QTT: %d/%d statements parse (%.2f%%); tests expecting an exception: %d/%d parse", ok, total, rate, negOK, negTotal)
	if rate < 97 {
		t.Errorf("QTT pass rate %.2f%% is below 97%%", rate)
	}
}

// roundTrip checks that each statement's canonical SQL parses back to the
// same tree.
func roundTrip(t *testing.T, stmts []ast.Statement) {
	t.Helper()
	for _, s := range stmts {
		checkRoundTrip(t, s, ast.FormatStatement(s))
	}
}

func logFailures(t *testing.T, failures map[string]string) {
	keys := make([]string, 0, len(failures))
	for k := range failures {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("FAIL %s\n     %s", k, failures[k])
	}
}

func readQTT(t *testing.T, path string) []qttCase {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests []qttCase `json:"tests"`
	}
	lineComment := regexp.MustCompile(`(?m)^\s*//.*$`)
	clean := lineComment.ReplaceAllString(string(data), "")
	if err := json.Unmarshal([]byte(clean), &doc); err != nil {
		t.Logf("skipping %s: %v", filepath.Base(path), err)
		return nil
	}
	for i := range doc.Tests {
		for j, s := range doc.Tests[i].Statements {
			doc.Tests[i].Statements[j] = strings.TrimSpace(s)
		}
	}
	return doc.Tests
}
