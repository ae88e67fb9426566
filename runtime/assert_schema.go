package runtime

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

// assertRetry is how often an assertion is checked again while it fails
// (ksqlDB's AssertExecutor: every 100 ms until the timeout).
const assertRetry = 100 * time.Millisecond

// assertSchema runs ASSERT [NOT EXISTS] SCHEMA as ksqlDB's
// AssertSchemaExecutor: the registry is asked for the subject's latest
// schema, the id's schema, or (both given) whether the id is registered
// under the subject, every 100 ms until the assertion holds or the
// timeout passes; then the last failure is an assertion error (HTTP 417,
// "Schema with subject name s id n does not exist" / "… exists").
func (e *Engine) assertSchema(ctx context.Context, st *ast.AssertSchema, s *session) (api.Entity, error) {
	reg := e.planner.Defaults.SchemaRegistry
	if reg == nil {
		return nil, &api.ErrorMessage{ErrorCode: api.CodeSchemaRegistryNotConfigured,
			Message: "Cannot check schema existence: no schema registry is configured (set '" + props.SchemaRegistryURL + "')"}
	}
	timeout := time.Duration(st.TimeoutMs) * time.Millisecond
	if st.TimeoutMs < 0 {
		timeout = props.NewParser(e.table, s.props).Millis(props.AssertSchemaTimeout)
	}
	deadline := time.Now().Add(timeout)
	for {
		why := checkSchemaAssertion(ctx, reg, st)
		if why == "" {
			return assertSchemaEntity(st), nil
		}
		if ctx.Err() != nil || time.Until(deadline) <= 0 {
			return nil, &api.ErrorMessage{ErrorCode: api.CodeAssertionFailed, Message: why}
		}
		select {
		case <-ctx.Done():
		case <-time.After(min(assertRetry, time.Until(deadline))):
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

func assertSchemaEntity(st *ast.AssertSchema) api.AssertSchemaEntity {
	ent := api.AssertSchemaEntity{StatementText: st.Text(), Exists: !st.NotExists}
	if st.Subject != "" {
		ent.Subject = &st.Subject
	}
	if st.ID != 0 {
		ent.ID = &st.ID
	}
	return ent
}
