package parser

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// TestGrammar runs testdata/grammar/*, the rule-by-rule table of ksqlDB's
// grammar (SqlBase.g4 in confluentinc/ksql): one `grammar rule=NAME`
// block per parser rule or lexical form, each line a statement and what
// ksqlDB's grammar does with it:
//
//   - SQL   ksqlDB's grammar accepts it, and so do we (canonical text out)
//   - SQL   ksqlDB's grammar refuses it, and so do we (code and message)
//     > SQL   ksqlDB's grammar refuses it, we accept it: a deliberate
//     extension, recorded
//     ! SQL   ksqlDB's grammar accepts it, we refuse it: a gap (the message
//     says why; what is missing is listed in the block's comment)
//
// A + or > line that does not parse, or a - or ! line that does, fails
// the test, as does a canonical text that does not parse back to itself;
// the golden output pins the canonical text or the error of each. A +
// row may end with "-- server: text", the error a server answers it with
// when it runs (TestGrammarTableThroughBinary in tests/ sends every +
// row to the binary).
func TestGrammar(t *testing.T) {
	datadriven.Walk(t, "testdata/grammar", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "grammar" {
				t.Fatalf("unknown command %s", d.Cmd)
			}
			var rule string
			d.ScanArgs(t, "rule", &rule)
			var b strings.Builder
			for _, line := range strings.Split(d.Input, "\n") {
				if line = strings.TrimSpace(line); line != "" {
					b.WriteString(grammarLine(t, d.Pos, rule, line))
				}
			}
			return b.String()
		})
	})
}

// grammarLine checks one marked statement and prints its outcome.
func grammarLine(t *testing.T, pos, rule, line string) string {
	mark, sql, _ := strings.Cut(line, " ")
	stmts, err := Parse(sql)
	accepted := err == nil
	switch mark {
	case "+", ">":
		if !accepted {
			t.Errorf("%s: rule %s: %q should parse: %v", pos, rule, sql, err)
		}
	case "-", "!":
		if accepted {
			t.Errorf("%s: rule %s: %q should be refused", pos, rule, sql)
		}
	default:
		t.Fatalf("%s: rule %s: line %q must start with +, -, > or !", pos, rule, line)
	}
	if !accepted {
		return fmt.Sprintf("%s %s\n  %s\n", mark, sql, errorLine(err))
	}
	canon := make([]string, len(stmts))
	for i, s := range stmts {
		canon[i] = ast.FormatStatement(s)
		if again, err := Parse(canon[i]); err != nil || len(again) != 1 || ast.FormatStatement(again[0]) != canon[i] {
			t.Errorf("%s: rule %s: the canonical text %q does not parse back to itself (%v)", pos, rule, canon[i], err)
		}
	}
	return fmt.Sprintf("%s %s\n  ok: %s\n", mark, sql, strings.Join(canon, "; "))
}

// errorLine is an error's code and first line.
func errorLine(err error) string {
	var se *sqlerr.Error
	if errors.As(err, &se) {
		return fmt.Sprintf("%s: %s", se.Code, strings.SplitN(se.Error(), "\n", 2)[0])
	}
	return "non-sql error: " + err.Error()
}

// TestGrammarChecklist runs testdata/sqlbase, the list of every rule,
// labelled alternative and token of ksqlDB's SqlBase.g4 with the block of
// testdata/grammar covering it, and prints each with that block's
// status (same, extension or gap) and the counts by status.
func TestGrammarChecklist(t *testing.T) {
	status := grammarBlockStatus(t)
	datadriven.RunTest(t, "testdata/sqlbase", func(t *testing.T, d *datadriven.TestData) string {
		var b strings.Builder
		counts := map[string]int{}
		for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
			name, block, ok := strings.Cut(strings.TrimSpace(line), " ")
			st, known := status[block]
			if !ok || !known {
				t.Errorf("%s: %q names no block of testdata/grammar", d.Pos, line)
				continue
			}
			counts[st]++
			fmt.Fprintf(&b, "%s %s %s\n", name, block, st)
		}
		for _, st := range []string{"same", "extension", "gap"} {
			fmt.Fprintf(&b, "%s: %d\n", st, counts[st])
		}
		return b.String()
	})
}

// grammarBlockStatus reads the blocks of testdata/grammar: gap when one
// of its rows is !, extension when one is >, same otherwise.
func grammarBlockStatus(t *testing.T) map[string]string {
	out := map[string]string{}
	datadriven.Walk(t, "testdata/grammar", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			var rule string
			d.ScanArgs(t, "rule", &rule)
			st := "same"
			for _, line := range strings.Split(d.Input, "\n") {
				switch mark, _, _ := strings.Cut(strings.TrimSpace(line), " "); {
				case mark == "!":
					st = "gap"
				case mark == ">" && st == "same":
					st = "extension"
				}
			}
			out[rule] = st
			return d.Expected
		})
	})
	return out
}
