package sqltest

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/sqlstream/sqlstream/qtt"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/script"
)

// errKind is the class of a step's failure, as ksqlDB's runner would
// throw it.
type errKind uint8

const (
	// kindStatement: the engine refused a statement (KsqlStatementException).
	kindStatement errKind = iota
	// kindSource: an ASSERT STREAM/TABLE did not match (KsqlException).
	kindSource
	// kindRecord: an ASSERT VALUES/NULL VALUES did not match
	// (java.lang.AssertionError).
	kindRecord
	// kindHarness: the test itself is broken (a missing RUN SCRIPT, an
	// ASSERT that does not parse, a driver that cannot read topics).
	kindHarness
)

var kindNames = [...]string{kindStatement: "statement error", kindSource: "source assertion",
	kindRecord: "record assertion", kindHarness: "test error"}

// stepError is a step's failure and its class.
type stepError struct {
	kind   errKind
	err    error
	detail []string // what the assertion compared
}

func (e *stepError) Error() string { return e.err.Error() }

func fail(kind errKind, format string, args ...any) *stepError {
	return &stepError{kind: kind, err: fmt.Errorf(format, args...)}
}

// matches reports whether a failure of this kind is an instance of the
// Java class ksqlDB's test names: AssertionError for record assertions,
// KsqlStatementException for statements, KsqlException (its superclass)
// for statements and source assertions; another class (a subclass ksqlDB
// throws from deeper down) for statements.
func (k errKind) matches(class string) bool {
	switch class[strings.LastIndexByte(class, '.')+1:] {
	case "":
		return true
	case "AssertionError":
		return k == kindRecord
	case "KsqlException":
		return k == kindStatement || k == kindSource
	}
	return k == kindStatement
}

// runner runs one test on one driver.
type runner struct {
	d       qtt.Driver
	topics  qtt.TopicReader
	settler qtt.Settler // nil: the driver processes an INSERT before Execute returns
	reg     *functions.Registry
	session []string       // SET/UNSET/DEFINE/UNDEFINE so far
	read    map[string]int // records of each topic the ASSERTs consumed
}

// run runs test t (as variant v) on d and judges the outcome.
func run(v *qtt.Variant, t *test, d qtt.Driver) qtt.Result {
	if len(t.steps) == 0 {
		return qtt.Result{Variant: v, Status: qtt.Skipped, Reason: fmt.Sprintf("the test (line %d) has no statements", t.line)}
	}
	r := &runner{d: d, reg: functions.NewRegistry(), read: map[string]int{}}
	r.topics, _ = d.(qtt.TopicReader)
	r.settler, _ = d.(qtt.Settler)
	for i, s := range t.steps {
		if err := r.step(s); err != nil {
			return judge(v, t, i, err)
		}
	}
	if t.expect != nil {
		return qtt.Failure(v, "expected an exception (%s), but every statement and assertion succeeded", qtt.ExpectedText(t.expect))
	}
	return qtt.Result{Variant: v, Status: qtt.Passed}
}

// step runs one step; the error says how it failed.
func (r *runner) step(s step) *stepError {
	switch s.kind {
	case stepBroken:
		return &stepError{kind: kindHarness, err: s.err}
	case stepAssertValues, stepAssertNull:
		return r.assertRecord(s)
	case stepAssertSource:
		return r.assertSource(s)
	}
	if err := r.d.Execute(r.withSession(s.sql)); err != nil {
		return &stepError{kind: kindStatement, err: err, detail: qtt.StatementDetail(s.text, err)[1:]}
	}
	if s.kind == stepSession {
		r.session = append(r.session, s.sql)
	}
	return r.settle(s)
}

// settle waits, after an INSERT on a driver whose queries run behind its
// statements, until the queries have processed it, as ksqlDB's runner
// has before its next statement (qtt.Settler).
func (r *runner) settle(s step) *stepError {
	if r.settler == nil || !strings.EqualFold(script.FirstWord(s.sql), "INSERT") {
		return nil
	}
	if err := r.settler.Settle(); err != nil {
		return &stepError{kind: kindHarness, err: fmt.Errorf("after the INSERT: %w", err)}
	}
	return nil
}

// withSession puts the test's session statements before stmt: the
// engine keeps SET and DEFINE for one request, ksqlDB's runner for the
// whole test.
func (r *runner) withSession(stmt string) string {
	if len(r.session) == 0 {
		return stmt
	}
	return strings.Join(r.session, " ") + "\n" + stmt
}

// judge decides a test that stopped at step i with err.
func judge(v *qtt.Variant, t *test, i int, err *stepError) qtt.Result {
	s := t.steps[i]
	where := fmt.Sprintf("step %d of %d (line %d)", i+1, len(t.steps), s.line)
	r := qtt.Failure(v, "%s failed: %s", where, qtt.OneLine(err))
	r.Detail = append([]string{"statement: " + s.text}, err.detail...)
	if len(err.detail) == 0 {
		r.Detail = append(r.Detail, strings.Split(err.Error(), "\n")...)
	}
	e := t.expect
	switch {
	case e == nil:
		return r
	case err.kind == kindHarness:
		r.Reason = fmt.Sprintf("%s could not run, so the expected exception (%s) cannot be judged: %s", where, qtt.ExpectedText(e), qtt.OneLine(err))
		return r
	case e.Type != "" && !err.kind.matches(e.Type):
		r.Reason = fmt.Sprintf("%s failed with a %s, not the expected %s: %s", where, kindNames[err.kind], e.Type, qtt.OneLine(err))
		return r
	case sameMessage(err.Error(), e.Message):
		r.Status, r.Reason = qtt.Passed, "failed as expected: "+qtt.OneLine(err)
		return r
	}
	r.Reason = fmt.Sprintf("%s failed, but not with the message expected (%s): %s", where, qtt.ExpectedText(e), qtt.OneLine(err))
	r.Detail = append([]string{"ksqlDB's message: " + e.Message}, r.Detail...)
	return r
}

// positionRe is the line:column prefix of a rendered SQL error.
var positionRe = regexp.MustCompile(`(?m)^line \d+:\d+: `)

// sameMessage reports whether our error says what ksqlDB's message does,
// as its runner checks (the message contains the expected text), ignoring
// case and our line:column prefixes; an error whose first line ksqlDB's
// message contains (ksqlDB adds context, "Exception while preparing
// statement: …") says it too. A refusal in other words does not: a
// negative test is earned by the refusal ksqlDB makes, not by any error
// (a feature sqlstream lacks would pass it).
func sameMessage(ours, expected string) bool {
	ours = strings.ToLower(positionRe.ReplaceAllString(ours, ""))
	expected = strings.ToLower(expected)
	if strings.Contains(ours, expected) {
		return true
	}
	first, _, _ := strings.Cut(ours, "\n")
	first = strings.TrimSpace(first)
	return len(first) >= minContext && strings.Contains(expected, first)
}

// minContext is how long our first line must be to count as found in
// ksqlDB's message (a word or two would be found anywhere).
const minContext = 12

// errNoTopicReader is the failure of an ASSERT on a driver that cannot
// read topics back.
var errNoTopicReader = errors.New("this driver cannot read topics back, which ASSERT VALUES needs: run SQL test files on a driver that can (the in-memory engine, or --broker)")
