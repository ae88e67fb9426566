package runtime_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/runtime"
)

// TestSessionSettingsFollowSetAndUnset: a session's typed settings are
// parsed again after each SET and UNSET, so a statement after them
// sees them (ksql.insert.into.values.enabled and
// ksql.variable.substitution.enable here), and the server's value of
// ksql.insert.into.values.enabled is what /inserts-stream reads.
func TestSessionSettingsFollowSetAndUnset(t *testing.T) {
	eng, err := runtime.NewTestEngine(map[string]string{"ksql.insert.into.values.enabled": "false"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if _, err := eng.ExecuteStatement("CREATE STREAM s (id INT KEY, v STRING) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);", nil); err != nil {
		t.Fatal(err)
	}
	const disabled = "The server has disabled INSERT INTO ... VALUES functionality"
	if _, err := eng.ExecuteStatement("INSERT INTO s (id, v) VALUES (1, 'a');", nil); err == nil || !strings.Contains(err.Error(), disabled) {
		t.Fatalf("server setting false: %v", err)
	}
	if _, err := eng.ExecuteStatement("SET 'ksql.insert.into.values.enabled'='true'; INSERT INTO s (id, v) VALUES (1, 'a');", nil); err != nil {
		t.Fatalf("after SET true: %v", err)
	}
	if _, err := eng.ExecuteStatement("SET 'ksql.insert.into.values.enabled'='true'; UNSET 'ksql.insert.into.values.enabled'; INSERT INTO s (id, v) VALUES (2, 'b');", nil); err == nil || !strings.Contains(err.Error(), disabled) {
		t.Fatalf("after UNSET (the server's false again): %v", err)
	}
	if err := eng.Insert(context.Background(), "S", map[string]any{"ID": 3, "V": "c"}); err == nil || !strings.Contains(err.Error(), disabled) {
		t.Fatalf("/inserts-stream with the server's false: %v", err)
	}
	ents, err := eng.ExecuteStatement("DEFINE x = 'S'; SET 'ksql.variable.substitution.enable'='false'; DESCRIBE ${x};", nil)
	if err == nil {
		t.Fatalf("substitution off: ${x} was replaced: %v", ents)
	}
}
