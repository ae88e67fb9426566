package runtime_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/runtime/props"
)

// TestCommandStatusLookup: GET /status/{id} answers with the message and
// query id the command answered with, not an empty message.
func TestCommandStatusLookup(t *testing.T) {
	eng := newTestEngine(t, nil)
	for _, sql := range []string{
		"CREATE STREAM s (id INT KEY, v INT) WITH (kafka_topic='s', value_format='JSON');",
		"CREATE STREAM t AS SELECT * FROM s;",
	} {
		if _, err := eng.ExecuteStatement(sql, nil); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	st, ok := eng.CommandStatus("stream/T/create")
	if !ok || st.Status != api.StatusSuccess || st.QueryID == nil || *st.QueryID != "CSAS_T_1" ||
		st.Message != "Created query with ID CSAS_T_1" {
		t.Fatalf("stream/T/create: %+v (found %v)", st, ok)
	}
	if st, ok := eng.CommandStatus("stream/S/create"); !ok || st.Message != "Stream created" || st.QueryID != nil {
		t.Fatalf("stream/S/create: %+v (found %v)", st, ok)
	}
	if _, ok := eng.CommandStatus("stream/NOPE/create"); ok {
		t.Fatal("an unknown command has a status")
	}
}

// TestValidateProperty: GET /is_valid_property refuses unknown and
// server-only properties and accepts the rest.
func TestValidateProperty(t *testing.T) {
	eng := newTestEngine(t, nil)
	for name, want := range map[string]props.Problem{
		"no.such.property":      props.ProblemUnknown,
		"ksql.service.id":       props.ProblemProhibited,
		"bootstrap.servers":     props.ProblemProhibited,
		"ksql.streams.bogus.ms": props.ProblemUnknown,
	} {
		var pe *props.Error
		if err := eng.ValidateProperty(name); !errors.As(err, &pe) || pe.Problem != want {
			t.Errorf("%s: %v, want problem %d", name, err, want)
		}
	}
	for _, name := range []string{"auto.offset.reset", "ksql.streams.commit.interval.ms", "window.close.idle.ms"} {
		if err := eng.ValidateProperty(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestBadStreamsPropertiesAreRefused: a request whose streamsProperties
// hold an unknown or badly typed property fails as a whole with a 40000
// error naming it, before any statement runs.
func TestBadStreamsPropertiesAreRefused(t *testing.T) {
	eng := newTestEngine(t, nil)
	create := "CREATE STREAM s (id INT KEY, v INT) WITH (kafka_topic='s', value_format='JSON');"
	for prop, want := range map[string]string{
		"no.such.property":   "'no.such.property'",
		"commit.interval.ms": "configuration commit.interval.ms",
	} {
		ents, err := eng.ExecuteStatement(create, map[string]any{prop: "soon"})
		var em *api.ErrorMessage
		if !errors.As(err, &em) || em.ErrorCode != api.CodeBadRequest || !strings.Contains(em.Message, want) || len(ents) != 0 {
			t.Errorf("%s: entities %v, error %v; want a 40000 error mentioning %s", prop, ents, err, want)
		}
	}
	if _, err := eng.Query(context.Background(), "SELECT * FROM s EMIT CHANGES;", map[string]any{"no.such.property": 1}, nil); err == nil ||
		!strings.Contains(err.Error(), "no.such.property") {
		t.Errorf("push query with a bad property: %v", err)
	}
	if _, err := runtime.NewTestEngine(map[string]string{"ksql.streams.bogus.ms": "1"}); err == nil ||
		!strings.Contains(err.Error(), "ksql.streams.bogus.ms") {
		t.Errorf("engine with a bad configuration: %v", err)
	}
}

func newTestEngine(t *testing.T, props map[string]string) *runtime.TestEngine {
	t.Helper()
	eng, err := runtime.NewTestEngine(props)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}
