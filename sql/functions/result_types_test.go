package functions

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/sqlstream/sqlstream/sql/types"
)

// TestResultTypes checks the result type of every overload against
// ksqlDB's function reference (testdata/result_types). Commands, one
// overload a line, "NAME(ARG, …) RESULT":
//
//	scalar      resolved with Registry.Resolve
//	aggregate   resolved with Aggregates.Resolve; a literal argument (2,
//	            true) is an init argument, passed as its value
//	table       resolved with Registry.ResolveTable
//
// A bare DECIMAL result is ksqlDB's schema-provider decimal: any
// precision and scale matches. A line starting "> " is a recorded
// deviation (its reason after " -- "): it must differ. Every other line
// must agree. The output lists the deviations and counts the rest.
func TestResultTypes(t *testing.T) {
	r, aggs := NewRegistry(), NewAggregates()
	datadriven.RunTest(t, "testdata/result_types", func(t *testing.T, d *datadriven.TestData) string {
		var b strings.Builder
		agree := 0
		for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
			row := parseResultRow(t, line)
			got, err := resolveResult(r, aggs, d.Cmd, row)
			if err != nil {
				got = "error: " + err.Error()
			}
			same := row.matches(got)
			switch {
			case row.deviation && same:
				t.Errorf("%s: a recorded deviation that agrees with ksqlDB: %s", d.Pos, line)
			case row.deviation:
				fmt.Fprintf(&b, "deviation: %s: ksqlDB %s, sqlstream %s (%s)\n", row.call, row.want, got, row.reason)
			case !same:
				t.Errorf("%s: %s: ksqlDB's result is %s, sqlstream's %s", d.Pos, row.call, row.want, got)
			default:
				agree++
			}
		}
		fmt.Fprintf(&b, "%d overloads agree with ksqlDB\n", agree)
		return b.String()
	})
}

// resultRow is one line of testdata/result_types.
type resultRow struct {
	call, want, reason string
	deviation          bool
}

var resultLine = regexp.MustCompile(`^(\w+\(.*\)) (\S.*)$`)

func parseResultRow(t *testing.T, line string) resultRow {
	var row resultRow
	if rest, ok := strings.CutPrefix(line, "> "); ok {
		row.deviation = true
		line, row.reason, _ = strings.Cut(rest, " -- ")
	}
	m := resultLine.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("not NAME(ARGS) RESULT: %q", line)
	}
	row.call, row.want = m[1], m[2]
	return row
}

// matches reports whether got is the expected result; a bare DECIMAL
// stands for any decimal.
func (row resultRow) matches(got string) bool {
	pattern := regexp.QuoteMeta(row.want)
	pattern = regexp.MustCompile(`DECIMAL(?:\\\()?`).ReplaceAllStringFunc(pattern, func(s string) string {
		if s == "DECIMAL" {
			return `DECIMAL\(\d+, \d+\)`
		}
		return s
	})
	return regexp.MustCompile("^" + pattern + "$").MatchString(got)
}

func resolveResult(r *Registry, aggs *Aggregates, kind string, row resultRow) (string, error) {
	name, argText, _ := strings.Cut(strings.TrimSuffix(row.call, ")"), "(")
	args, init, err := parseResultArgs(argText)
	if err != nil {
		return "", err
	}
	switch kind {
	case "scalar":
		res, err := r.Resolve(name, args)
		if err != nil {
			return "", err
		}
		return res.Return.String(), nil
	case "aggregate":
		agg, err := aggs.Resolve(name, args, init)
		if err != nil {
			return "", err
		}
		return agg.ReturnType().String(), nil
	case "table":
		res, err := r.ResolveTable(name, args)
		if err != nil {
			return "", err
		}
		return res.Return.String(), nil
	}
	return "", fmt.Errorf("unknown command %s", kind)
}

// parseResultArgs reads "TYPE, 2, true": types in ksqlDB's syntax, and
// literals (an INTEGER or BOOLEAN init argument with its value).
func parseResultArgs(s string) ([]*types.Type, []any, error) {
	var args []*types.Type
	var init []any
	for _, part := range splitTopLevel(s) {
		switch part = strings.TrimSpace(part); {
		case part == "true" || part == "false":
			args, init = append(args, types.BooleanType), append(init, part == "true")
		case isDigits(part):
			n, err := strconv.ParseInt(part, 10, 32)
			if err != nil {
				return nil, nil, err
			}
			args, init = append(args, types.IntegerType), append(init, int32(n))
		default:
			p, err := parsePattern(&sigLexer{toks: lexSignature(part)})
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", part, err)
			}
			args = append(args, (&binder{vars: map[string]*types.Type{}}).instantiate(p, nil))
		}
	}
	return args, init, nil
}

func splitTopLevel(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '<', '(':
			depth++
		case '>', ')':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	if strings.TrimSpace(s[start:]) != "" {
		parts = append(parts, s[start:])
	}
	return parts
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
