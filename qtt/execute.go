package qtt

import (
	"errors"
	"fmt"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// Status is the outcome of one variant.
type Status uint8

// The outcomes. Deviated is a variant on the deviation list
// (deviations.go): run, but counted as neither passed nor failed.
const (
	Passed Status = iota
	Failed
	Skipped
	Deviated
)

var statusNames = [...]string{Passed: "passed", Failed: "failed", Skipped: "skipped", Deviated: "deviated"}

func (s Status) String() string { return statusNames[s] }

// Result is the outcome of one variant: a one-line Reason (why it failed
// or was skipped, or which error a negative test saw), multi-line Detail
// for -v (every problem, a stack for panics) and the output Diff.
type Result struct {
	Variant  *Variant
	Status   Status
	Reason   string
	Detail   []string
	Diff     []string
	Duration time.Duration
}

// runConfig is what every variant of a run shares.
type runConfig struct {
	newDriver NewDriver
	timeout   time.Duration
	onlyEasy  bool
	broker    bool // variants run against a broker (--broker)
}

// runVariant runs the QTT variant v (see runJob).
func runVariant(v *Variant, cfg runConfig) Result {
	return runJob(Job{Variant: v}, cfg)
}

// runJob runs j on a fresh driver, or skips it (or fails it, for a
// file that did not parse). A panic becomes a
// failure with the stack in Detail; a variant running past the timeout is
// failed and abandoned (its goroutine and driver are left to finish).
func runJob(j Job, cfg runConfig) Result {
	v := j.Variant
	if r, done := skipResult(v, cfg); done {
		return r
	}
	start := time.Now()
	done := make(chan Result, 1)
	go func() { done <- runGuarded(j, cfg) }()
	timer := time.NewTimer(cfg.timeout)
	defer timer.Stop()
	var r Result
	select {
	case r = <-done:
	case <-timer.C:
		r = Result{Variant: v, Status: Failed, Reason: fmt.Sprintf("timed out after %s", cfg.timeout)}
	}
	r.Duration = time.Since(start)
	return r
}

func skipResult(v *Variant, cfg runConfig) (Result, bool) {
	switch {
	case v.LoadErr != nil:
		return Result{Variant: v, Status: Failed, Reason: v.LoadErr.Error()}, true
	case v.Disabled:
		return Result{Variant: v, Status: Skipped, Reason: "disabled"}, true
	case cfg.onlyEasy && len(v.Hard) > 0:
		return Result{Variant: v, Status: Skipped, Reason: "needs " + strings.Join(v.Hard, ", ")}, true
	}
	return Result{}, false
}

func runGuarded(j Job, cfg runConfig) (r Result) {
	v := j.Variant
	defer func() {
		if p := recover(); p != nil {
			r = Result{Variant: v, Status: Failed, Reason: fmt.Sprintf("panic: %v", p),
				Detail: strings.Split(strings.TrimSpace(string(debug.Stack())), "\n")}
		}
	}()
	d, err := cfg.newDriver(driverConfig(v, cfg.broker))
	if err != nil {
		return Failure(v, "cannot start driver: %v", err)
	}
	defer d.Close()
	if j.Run != nil {
		return j.Run(d)
	}
	return runOn(v, d)
}

// driverConfig is what v's driver is given: its properties, its
// declared topics (formats resolved) and the run's mode.
func driverConfig(v *Variant, broker bool) DriverConfig {
	props := make(map[string]string, len(v.Properties))
	for k, p := range v.Properties {
		props[k] = p
	}
	return DriverConfig{Props: props, Topics: declaredTopics(withStatementPartitions(v.Topics, v.Statements)), Broker: broker}
}

// statementTopic finds a statement's KAFKA_TOPIC and PARTITIONS.
var (
	statementTopic      = regexp.MustCompile(`(?i)\bkafka_topic\s*=\s*'([^']*)'`)
	statementPartitions = regexp.MustCompile(`(?i)\bpartitions\s*=\s*(\d+)`)
)

// withStatementPartitions gives a declared topic without a partition
// count the PARTITIONS of a statement that creates it, as ksqlDB's
// harness does when it gathers a test's topics from its topics and its
// statements (else the topic exists with 1 partition and the statement
// fails: "KSQL expects 128 partitions").
func withStatementPartitions(ts []TopicSpec, statements []string) []TopicSpec {
	out := slices.Clone(ts)
	for i := range out {
		if out[i].Partitions != nil {
			continue
		}
		for _, st := range statements {
			m, n := statementTopic.FindStringSubmatch(st), statementPartitions.FindStringSubmatch(st)
			if m == nil || n == nil || m[1] != out[i].Name {
				continue
			}
			if p, err := strconv.ParseInt(n[1], 10, 32); err == nil {
				p32 := int32(p)
				out[i].Partitions = &p32
			}
			break
		}
	}
	return out
}

func declaredTopics(ts []TopicSpec) []Topic {
	var out []Topic
	for _, t := range ts {
		d := Topic{Name: t.Name, KeySchema: t.KeySchema, ValueSchema: t.ValueSchema,
			KeySchemaID: t.KeySchemaID, ValueSchemaID: t.ValueSchemaID, KeyRefs: t.KeySchemaReferences, ValueRefs: t.ValueSchemaReferences}
		if t.Partitions != nil {
			d.Partitions = *t.Partitions
		}
		if len(t.Schema) > 0 && len(t.ValueSchema) == 0 {
			d.ValueSchema = t.Schema
		}
		if t.Format != nil {
			d.KeyFormat, d.ValueFormat = t.Format.Format, t.Format.Format
		}
		if t.KeyFormat != nil {
			d.KeyFormat = t.KeyFormat.Format
		}
		if t.ValueFormat != nil {
			d.ValueFormat = t.ValueFormat.Format
		}
		out = append(out, d)
	}
	return out
}

// runOn executes statements, feeds inputs, then checks outputs and post
// conditions.
func runOn(v *Variant, d Driver) Result {
	if r, done := runStatements(v, d); done {
		return r
	}
	if err := ProduceInputs(v, d); err != nil {
		var pe *ProduceError
		if v.Expect != nil && errors.As(err, &pe) {
			return Result{Variant: v, Status: Passed, Reason: "input failed as expected: " + OneLine(err)}
		}
		return Failure(v, "%v", err)
	}
	if v.Expect != nil {
		return Failure(v, "expected an exception (%s), but every statement and record succeeded", ExpectedText(v.Expect))
	}
	return checkResults(v, d)
}

// runStatements executes v's statements; done is true when the outcome is
// already decided (a statement failed).
func runStatements(v *Variant, d Driver) (Result, bool) {
	for i, stmt := range v.Statements {
		err := d.Execute(stmt)
		if err == nil {
			continue
		}
		last := i == len(v.Statements)-1
		r := Failure(v, "statement %d failed: %s", i+1, OneLine(err))
		r.Detail = StatementDetail(stmt, err)
		switch {
		case v.Expect != nil && last:
			r.Status, r.Reason = Passed, "failed as expected: "+OneLine(err)
		case v.Expect != nil:
			r.Reason = fmt.Sprintf("statement %d of %d failed, but the exception was expected from the last one: %s",
				i+1, len(v.Statements), OneLine(err))
		}
		return r, true
	}
	return Result{}, false
}

// StatementDetail shows the statement and its error (with a caret when it
// is a SQL error).
func StatementDetail(stmt string, err error) []string {
	text := err.Error()
	var se *sqlerr.Error
	if errors.As(err, &se) {
		if se.SQL == "" {
			c := *se
			c.SQL = stmt
			se = &c
		}
		text = se.Render()
	}
	return append([]string{"statement: " + stmt}, strings.Split(text, "\n")...)
}

// ProduceError is the engine failing to process an input record, as
// opposed to the runner failing to serialize it: only the former can be
// a negative test's expected exception.
type ProduceError struct {
	index int
	topic string
	err   error
}

// Error implements error.
func (e *ProduceError) Error() string {
	return fmt.Sprintf("input %d (topic %s): %v", e.index, e.topic, e.err)
}

// Unwrap returns the engine's error.
func (e *ProduceError) Unwrap() error { return e.err }

// ProduceInputs serializes and feeds every input record.
func ProduceInputs(v *Variant, d Driver) error {
	ss := newSerdes(d.Sources(), false)
	for i, in := range v.Inputs {
		sd, err := ss.forTopic(in.Topic)
		if err != nil {
			return fmt.Errorf("cannot serialize input %d: %w", i, err)
		}
		rec, err := sd.toRecord(in)
		if err != nil {
			return fmt.Errorf("cannot serialize input %d (topic %s): %w", i, in.Topic, err)
		}
		if err := d.Produce(rec); err != nil {
			return &ProduceError{index: i, topic: in.Topic, err: err}
		}
	}
	return nil
}

// checkResults compares outputs and post conditions.
func checkResults(v *Variant, d Driver) Result {
	sources := d.Sources()
	outputs, err := d.Drain()
	if err != nil {
		return Failure(v, "cannot read the outputs back: %v", err)
	}
	problems, diff := CheckOutputs(v, outputs, sources)
	problems = append(problems, checkPost(v.Post, sources, d.Topics())...)
	r := Result{Variant: v, Status: Passed, Diff: diff}
	if len(problems) > 0 {
		r.Status, r.Reason, r.Detail = Failed, problems[0], problems
	}
	return r
}

// Failure is v failing for the reason format and args give.
func Failure(v *Variant, format string, args ...any) Result {
	return Result{Variant: v, Status: Failed, Reason: fmt.Sprintf(format, args...)}
}

// ExpectedText is the expected exception of a negative test, shortened
// for a one-line reason.
func ExpectedText(e *ExpectedException) string {
	msg := OneLine(errors.New(e.Message))
	if len(msg) > 80 {
		msg = msg[:77] + "..."
	}
	if e.Type == "" {
		return msg
	}
	return e.Type[strings.LastIndexByte(e.Type, '.')+1:] + ": " + msg
}

// OneLine returns the first line of err's text.
func OneLine(err error) string {
	s := strings.TrimSpace(err.Error())
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
