package assert

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
)

// retryEvery is how often an assertion is checked again while it fails
// (ksqlDB's AssertExecutor: every 100 ms until the timeout).
const retryEvery = 100 * time.Millisecond

// Schema runs ASSERT [NOT EXISTS] SCHEMA as ksqlDB's
// AssertSchemaExecutor: the registry is asked for the subject's latest
// schema, the id's schema, or (both given) whether the id is registered
// under the subject, every 100 ms until the assertion holds or the
// timeout (TIMEOUT, else def: ksql.assert.schema.default.timeout.ms)
// passes; then the last failure is an assertion error (HTTP 417, "Schema
// with subject name s id n does not exist" / "… exists"). reg nil is no
// registry configured.
func Schema(ctx context.Context, reg format.SchemaRegistry, st *ast.AssertSchema, def time.Duration) (api.Entity, error) {
	if reg == nil {
		return nil, &api.ErrorMessage{ErrorCode: api.CodeSchemaRegistryNotConfigured,
			Message: "Cannot check schema existence: no schema registry is configured (set '" + props.SchemaRegistryURL + "')"}
	}
	err := retry(ctx, timeout(st.TimeoutMs, def), func() string { return checkSchemaAssertion(ctx, reg, st) })
	if err != nil {
		return nil, err
	}
	return schemaEntity(st), nil
}

// timeout is a statement's TIMEOUT (ms; negative when not given) or def.
func timeout(ms int64, def time.Duration) time.Duration {
	if ms < 0 {
		return def
	}
	return time.Duration(ms) * time.Millisecond
}

// retry checks until check holds ("") or the timeout passes (or ctx is
// done); then check's last failure is an assertion error.
func retry(ctx context.Context, timeout time.Duration, check func() string) error {
	deadline := time.Now().Add(timeout)
	for {
		why := check()
		if why == "" {
			return nil
		}
		if ctx.Err() != nil || time.Until(deadline) <= 0 {
			return &api.ErrorMessage{ErrorCode: api.CodeAssertionFailed, Message: why}
		}
		select {
		case <-ctx.Done():
		case <-time.After(min(retryEvery, time.Until(deadline))):
		}
	}
}

// checkSchemaAssertion returns why st does not hold now ("" when it does).
func checkSchemaAssertion(ctx context.Context, reg format.SchemaRegistry, st *ast.AssertSchema) string {
	exists, err := schemaExists(ctx, reg, st)
	if err != nil {
		return "Cannot check schema existence: " + err.Error()
	}
	what := "Schema with"
	if st.Subject != "" {
		what += " subject name " + st.Subject
	}
	if st.ID != 0 {
		what += fmt.Sprintf(" id %d", st.ID)
	}
	switch {
	case st.NotExists && exists:
		return what + " exists"
	case !st.NotExists && !exists:
		return what + " does not exist"
	}
	return ""
}

// schemaExists asks the registry whether the schema st names exists; a
// registry answer other than "not found" is an error.
func schemaExists(ctx context.Context, reg format.SchemaRegistry, st *ast.AssertSchema) (bool, error) {
	var err error
	switch {
	case st.Subject != "" && st.ID != 0:
		lister, ok := reg.(format.SubjectLister)
		if !ok {
			return false, errors.New("the schema registry cannot list the subjects of a schema id")
		}
		var subjects []string
		if subjects, err = lister.SubjectsByID(ctx, st.ID); err == nil {
			return slices.Contains(subjects, st.Subject), nil
		}
	case st.ID != 0:
		// Polled until it exists: not the data path's memory of ids the
		// registry did not have, which would see it seconds late.
		_, err = reg.SchemaByID(format.AskingRegistry(ctx), st.ID)
	default:
		_, err = reg.Latest(ctx, st.Subject)
	}
	if errors.Is(err, format.ErrSchemaNotFound) {
		return false, nil
	}
	return err == nil, err
}

func schemaEntity(st *ast.AssertSchema) api.AssertSchemaEntity {
	ent := api.AssertSchemaEntity{StatementText: st.Text(), Exists: !st.NotExists}
	if st.Subject != "" {
		ent.Subject = &st.Subject
	}
	if st.ID != 0 {
		ent.ID = &st.ID
	}
	return ent
}
