package rest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sqlstream/sqlstream/qtt"
)

// queryWait bounds how long a push query is read when it neither reaches
// its LIMIT nor ends: the engine is synchronous, so every row it will
// give is ready long before.
const queryWait = 2 * time.Second

// job is the qtt.Job of one RQTT variant: qtt runs it as it runs QTT
// variants (skipped or failed up front when it must be, otherwise on a
// fresh driver with the timeout, a panic becoming a failure); the driver
// must be a Driver.
func (v *restVariant) job() qtt.Job {
	return qtt.Job{Variant: v.Variant, Run: func(d qtt.Driver) qtt.Result {
		rd, ok := d.(Driver)
		if !ok {
			return qtt.Failure(v.Variant, "the driver cannot run REST tests (in-memory engine only)")
		}
		return (&restRun{v: v, d: rd}).run()
	}}
}

// restRun is the state of one RQTT variant's run.
type restRun struct {
	v         *restVariant
	d         Driver
	responses []actualResponse
	produced  bool
}

// run follows ksqlDB's RQTT executor: the statements before the first
// SELECT, then the inputs (or, with waitForQueryHeader, once the first
// query's header is out), then each query; then outputs and responses.
func (r *restRun) run() qtt.Result {
	admin, queries, err := splitRestStatements(r.v.Statements)
	if err != nil {
		return qtt.Failure(r.v.Variant, "%v", err)
	}
	if res, done := r.runAdmin(admin); done {
		return res
	}
	if !r.v.WaitForHeader || len(queries) == 0 {
		if res, done := r.produce(); done {
			return res
		}
	}
	for i, q := range queries {
		if res, done := r.runQuery(len(admin)+i, q); done {
			return res
		}
	}
	if hasProtoResponses(r.v.Responses) {
		for i, q := range queries {
			if res, done := r.runProtoQuery(len(admin)+i, q); done {
				return res
			}
		}
	}
	if r.v.Expect != nil {
		return qtt.Failure(r.v.Variant, "expected an error (%s), but every statement succeeded", qtt.ExpectedText(r.v.Expect))
	}
	return r.check()
}

// splitRestStatements splits at the first SELECT; every statement after
// it must be a SELECT too.
func splitRestStatements(stmts []string) (admin, queries []string, err error) {
	first := len(stmts)
	for i, s := range stmts {
		isQuery := isSelect(s)
		switch {
		case isQuery && first == len(stmts):
			first = i
		case !isQuery && first < len(stmts):
			return nil, nil, fmt.Errorf("invalid test: statement %d follows a query but is not one", i+1)
		}
	}
	return stmts[:first], stmts[first:], nil
}

func isSelect(s string) bool {
	f := strings.Fields(s)
	return len(f) > 0 && strings.EqualFold(f[0], "SELECT")
}

func (r *restRun) runAdmin(stmts []string) (qtt.Result, bool) {
	for i, s := range stmts {
		ents, err := r.d.ExecuteREST(s)
		if err != nil {
			return r.statementFailed(i, s, err), true
		}
		rs, err := adminResponses(ents)
		if err != nil {
			return qtt.Failure(r.v.Variant, "statement %d: %v", i+1, err), true
		}
		for _, x := range rs {
			r.responses = append(r.responses, actualResponse{Kind: "admin", Payload: x["admin"]})
		}
	}
	return qtt.Result{}, false
}

// statementFailed is the outcome of statement i failing: a pass for a
// negative test, a failure otherwise.
func (r *restRun) statementFailed(i int, stmt string, err error) qtt.Result {
	if r.v.Expect != nil {
		return qtt.Result{Variant: r.v.Variant, Status: qtt.Passed, Reason: "failed as expected: " + qtt.OneLine(err)}
	}
	res := qtt.Failure(r.v.Variant, "statement %d failed: %s", i+1, qtt.OneLine(err))
	res.Detail = qtt.StatementDetail(stmt, err)
	return res
}

// produce feeds the inputs once.
func (r *restRun) produce() (qtt.Result, bool) {
	if r.produced {
		return qtt.Result{}, false
	}
	r.produced = true
	err := qtt.ProduceInputs(r.v.Variant, r.d)
	if err == nil {
		return qtt.Result{}, false
	}
	var pe *qtt.ProduceError
	if r.v.Expect != nil && errors.As(err, &pe) {
		return qtt.Result{Variant: r.v.Variant, Status: qtt.Passed, Reason: "input failed as expected: " + qtt.OneLine(err)}, true
	}
	return qtt.Failure(r.v.Variant, "%v", err), true
}

func (r *restRun) runQuery(i int, sql string) (qtt.Result, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), queryWait)
	defer cancel()
	rs, err := r.d.QueryREST(ctx, sql)
	if err != nil {
		return r.statementFailed(i, sql, err), true
	}
	defer rs.Close()
	var early *qtt.Result
	var after func() error
	if r.v.WaitForHeader && !r.produced {
		after = func() error {
			res, done := r.produce()
			if !done {
				return nil
			}
			early = &res
			return errors.New(res.Reason)
		}
	}
	elems, err := streamedRows(ctx, rs, after)
	if early != nil {
		return *early, true
	}
	return r.queryRead(i, sql, rs.Header().Pull, elems, err)
}

// runProtoQuery runs a query again as ksqlDB's RQTT executor does for
// testPullWithProtoFormat, asking for protobuf rows, and records the
// "queryProto" response.
func (r *restRun) runProtoQuery(i int, sql string) (qtt.Result, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), queryWait)
	defer cancel()
	rs, err := r.d.QueryREST(ctx, sql)
	if err != nil {
		return r.statementFailed(i, sql, err), true
	}
	defer rs.Close()
	elems, err := protoStreamedRows(ctx, rs)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return r.statementFailed(i, sql, err), true
	}
	r.responses = append(r.responses, actualResponse{Kind: "queryProto", Payload: elems, Pull: rs.Header().Pull})
	return qtt.Result{}, false
}

// queryRead records a query's elements; a stream error other than the
// read time running out fails the statement.
func (r *restRun) queryRead(i int, sql string, pull bool, elems []any, err error) (qtt.Result, bool) {
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return r.statementFailed(i, sql, err), true
	}
	r.responses = append(r.responses, actualResponse{Kind: "query", Payload: elems, Pull: pull})
	return qtt.Result{}, false
}

// check compares output topics (when the test gives outputs) and the
// responses.
func (r *restRun) check() qtt.Result {
	var problems, diff []string
	if len(r.v.Outputs) > 0 {
		problems, diff = qtt.CheckOutputs(r.v.Variant, r.outputRecords(), r.d.Sources())
	}
	problems = append(problems, compareResponses(r.v.Responses, r.responses)...)
	res := qtt.Result{Variant: r.v.Variant, Status: qtt.Passed, Diff: diff}
	if len(problems) > 0 {
		res.Status, res.Reason, res.Detail = qtt.Failed, problems[0], problems
	}
	return res
}

// outputRecords reads every topic the expected outputs name, from the
// start, in the order the topics first appear.
func (r *restRun) outputRecords() []qtt.Record {
	var out []qtt.Record
	seen := map[string]bool{}
	for _, o := range r.v.Outputs {
		if !seen[o.Topic] {
			seen[o.Topic] = true
			out = append(out, r.d.ReadTopic(o.Topic)...)
		}
	}
	return out
}
