package tests

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestBadPropertiesGetClearErrors: over HTTP, an unknown property in SET
// or a badly typed one in streamsProperties is a 400 naming the property,
// GET /is_valid_property refuses unknown and server-only names, and the
// server keeps answering afterwards. A config file with an unknown key
// does not start.
func TestBadPropertiesGetClearErrors(t *testing.T) {
	t.Parallel()
	code, _, errOut := runBinary(t, "server", "--config", writeConfig(t, "ksql.streams.no.such.thing=1\n"),
		"--data-dir", t.TempDir())
	if code != 2 || !strings.Contains(errOut, "ksql.streams.no.such.thing") {
		t.Errorf("config with an unknown key: exit %d, stderr %q", code, errOut)
	}

	n := startNode(t)
	for _, tc := range []struct {
		sql   string
		props map[string]any
		want  string
	}{
		{"SET 'no.such.property'='x';", nil, "Not recognizable as ksql, streams, consumer, or producer property: 'no.such.property'"},
		{"SHOW STREAMS;", map[string]any{"commit.interval.ms": "soon"}, "Invalid value soon for configuration commit.interval.ms"},
		{"SHOW STREAMS;", map[string]any{"ksql.service.id": "other_"}, "prohibited by the KSQL server"},
	} {
		status, v := n.ksql(tc.sql, tc.props)
		msg, _ := v.(map[string]any)["message"].(string)
		if status != http.StatusBadRequest || !strings.Contains(msg, tc.want) {
			t.Errorf("%s with %v: status %d, body %v; want 400 mentioning %q", tc.sql, tc.props, status, v, tc.want)
		}
	}
	n.mustKsql("CREATE STREAM s (id INT KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);")

	for path, want := range map[string]int{
		"/is_valid_property/no.such.property":  http.StatusBadRequest,
		"/is_valid_property/ksql.service.id":   http.StatusBadRequest,
		"/is_valid_property/auto.offset.reset": http.StatusOK,
	} {
		if status, body := n.get(path); status != want {
			t.Errorf("GET %s: %d %s, want %d", path, status, body, want)
		}
	}
	status, body := n.get("/status/stream/S/create")
	var st struct{ Status, Message string }
	if err := json.Unmarshal(body, &st); status != http.StatusOK || err != nil || st.Message != "Stream created" {
		t.Errorf("GET /status/stream/S/create: %d %s", status, body)
	}
}

// get GETs path and returns the status and body.
func (n *node) get(path string) (int, []byte) {
	n.t.Helper()
	resp, err := httpClient().Get(n.URL + path)
	if err != nil {
		n.t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		n.t.Fatalf("GET %s: %v", path, err)
	}
	return resp.StatusCode, body
}
