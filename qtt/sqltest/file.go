package sqltest

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/sqlstream/sqlstream/qtt"
	"github.com/sqlstream/sqlstream/sql/script"
)

// Format is ksqlDB's SQL test file format, for qtt.Main.
type Format struct{}

var _ qtt.Format = Format{}

// Name implements qtt.Format.
func (Format) Name() string { return "SQL" }

// Detect implements qtt.Format: a .sql file, or any file with a
// --@test: directive line.
func (Format) Detect(path string, src []byte) bool {
	return strings.EqualFold(filepath.Ext(path), ".sql") || testLine.Match(src)
}

// testLine finds a --@test: directive at the start of a line.
var testLine = regexp.MustCompile(`(?m)^[ \t]*--@test:`)

// Parse implements qtt.Format: one job per test, in file order.
func (Format) Parse(name, path string, src []byte) ([]qtt.Job, error) {
	tests, err := readTests(path, string(src))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	jobs := make([]qtt.Job, len(tests))
	for i, t := range tests {
		jobs[i] = t.job(name)
	}
	return jobs, nil
}

// test is one --@test: of a file and its steps.
type test struct {
	name   string
	line   int
	steps  []step
	expect *qtt.ExpectedException
}

// event is a directive or a statement at its offset in the file.
type event struct {
	offset    int
	directive *directive
	stmt      *script.Statement
}

// directive is one --@type: contents line.
type directive struct {
	kind, contents string
	line           int
}

// The directives ksqlDB's reader knows.
const (
	dirTest            = "test"
	dirExpectedError   = "expected.error"
	dirExpectedMessage = "expected.message"
)

// readTests splits src (the file at path) into its tests.
func readTests(path, src string) ([]*test, error) {
	events, err := scan(src)
	if err != nil {
		return nil, err
	}
	var tests []*test
	for _, ev := range events {
		if err := addEvent(&tests, ev, path, src); err != nil {
			return nil, err
		}
	}
	if len(tests) == 0 {
		return nil, fmt.Errorf("no tests: a SQL test file starts each test with --@test: name")
	}
	return tests, nil
}

// addEvent applies one event to the tests read so far.
func addEvent(tests *[]*test, ev event, path, src string) error {
	if d := ev.directive; d != nil && d.kind == dirTest {
		*tests = append(*tests, &test{name: d.contents, line: d.line})
		return nil
	}
	if len(*tests) == 0 {
		return fmt.Errorf("line %d: expected the test to start with --@test: (as ksqlDB's runner does)", lineOf(src, ev.offset))
	}
	t := (*tests)[len(*tests)-1]
	if d := ev.directive; d != nil {
		t.addDirective(d)
		return nil
	}
	steps := newSteps(*ev.stmt, lineOf(src, ev.stmt.Offset), path)
	t.steps = append(t.steps, steps...)
	return nil
}

// addDirective applies --@expected.error: or --@expected.message:.
func (t *test) addDirective(d *directive) {
	if t.expect == nil {
		t.expect = &qtt.ExpectedException{}
	}
	switch d.kind {
	case dirExpectedError:
		t.expect.Type = d.contents
	case dirExpectedMessage:
		t.expect.Message = d.contents
	}
}

// directiveRe is a directive line: --@type: contents.
var directiveRe = regexp.MustCompile(`^[ \t]*--@([A-Za-z.]+):[ \t]*(.*?)[ \t]*\r?$`)

// scan finds the statements and the directive lines between them, in
// file order. A --@ line that is not a known directive, or one inside a
// statement, is an error.
func scan(src string) ([]event, error) {
	stmts := script.All(src)
	var events []event
	for i := range stmts {
		events = append(events, event{offset: stmts[i].Offset, stmt: &stmts[i]})
	}
	inStmt := func(off int) bool {
		for _, s := range stmts {
			if off >= s.Offset && off < s.Offset+len(s.Text) {
				return true
			}
		}
		return false
	}
	off := 0
	for n, line := range strings.SplitAfter(src, "\n") {
		d, err := parseDirective(line, n+1)
		if err != nil {
			return nil, err
		}
		if d != nil && inStmt(off) {
			return nil, fmt.Errorf("line %d: directive %q inside a statement (does the statement before it lack its ';'?)", n+1, strings.TrimSpace(line))
		}
		if d != nil {
			events = append(events, event{offset: off, directive: d})
		}
		off += len(line)
	}
	sort.SliceStable(events, func(i, j int) bool { return events[i].offset < events[j].offset })
	return events, nil
}

// parseDirective reads a --@ line; nil for any other line.
func parseDirective(line string, n int) (*directive, error) {
	trimmed := strings.TrimSpace(line)
	if !strings.HasPrefix(trimmed, "--@") {
		return nil, nil
	}
	m := directiveRe.FindStringSubmatch(strings.TrimRight(line, "\n"))
	if m == nil {
		return nil, fmt.Errorf("line %d: %q is not a directive (--@test:, --@expected.error: or --@expected.message: followed by text)", n, trimmed)
	}
	switch kind := strings.ToLower(m[1]); kind {
	case dirTest, dirExpectedError, dirExpectedMessage:
		return &directive{kind: kind, contents: m[2], line: n}, nil
	}
	return nil, fmt.Errorf("line %d: unknown directive --@%s: (ksqlDB's runner knows --@test:, --@expected.error: and --@expected.message:)", n, m[1])
}

// lineOf is the 1-based line of byte offset off.
func lineOf(src string, off int) int {
	return 1 + bytes.Count([]byte(src[:off]), []byte("\n"))
}

// formatsNeedingRegistry are the formats --only-easy skips.
var formatsNeedingRegistry = regexp.MustCompile(`(?i)format\s*=\s*'(AVRO|PROTOBUF|PROTOBUF_NOSR|JSON_SR)'`)

// offsetReset is where a query of a SQL test starts reading: at the end
// of its sources, as in ksqlDB's runner, whose queries see only the
// records inserted after they start (its test driver pipes each INSERT to
// the queries running then); a query that a CREATE OR REPLACE upgrades
// goes on from where the old one stopped.
const offsetReset = "latest"

// job is the test as a qtt.Job of file name.
func (t *test) job(file string) qtt.Job {
	v := &qtt.Variant{File: file, Name: t.name, Expect: t.expect, Properties: map[string]string{"ksql.streams.auto.offset.reset": offsetReset}}
	seen := map[string]bool{}
	for _, s := range t.steps {
		v.Statements = append(v.Statements, s.text)
		for _, m := range formatsNeedingRegistry.FindAllStringSubmatch(s.text, -1) {
			if f := strings.ToUpper(m[1]); !seen[f] {
				seen[f] = true
				v.Hard = append(v.Hard, "format "+f)
			}
		}
	}
	return qtt.Job{Variant: v, Run: func(d qtt.Driver) qtt.Result { return run(v, t, d) }}
}
