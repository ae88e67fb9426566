package connecttest

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestFakeAnswers pins the fake's answers to Connect's REST API, request
// by request: statuses, bodies and the error format, as Connect's REST
// reference and resources give them.
func TestFakeAnswers(t *testing.T) {
	f := New()
	defer f.Close()
	steps := []struct {
		method, path, ctype, body string
		status                    int
		want                      string
	}{
		{"GET", "/connectors", "", "", 200, `[]`},
		{"POST", "/connectors", "text/plain", `{}`, 415, `{"error_code":415,"message":"HTTP 415 Unsupported Media Type"}`},
		{"POST", "/connectors", "application/json", `{"name":"src","config":{"connector.class":"io.example.FileSource"}}`, 400,
			`{"error_code":400,"message":"Connector configuration is invalid and contains the following 1 error(s):\nMissing required configuration \"file\" which has no default value.\nYou can also find the above list of errors at the endpoint ` + "`/connector-plugins/{connectorType}/config/validate`" + `"}`},
		{"POST", "/connectors", "application/json", `{"name":"src","config":{"file":"/f"}}`, 400,
			`{"error_code":400,"message":"Connector config {file=/f} contains no connector type"}`},
		{"POST", "/connectors", "application/json", `{"name":"src","config":{"connector.class":"io.example.FileSource","file":"/f","topic":"t"}}`, 201,
			`{"config":{"connector.class":"io.example.FileSource","file":"/f","topic":"t"},"name":"src","tasks":[],"type":"source"}`},
		{"POST", "/connectors", "application/json", `{"name":"src","config":{"connector.class":"io.example.FileSource","file":"/f"}}`, 409,
			`{"error_code":409,"message":"Connector src already exists"}`},
		{"GET", "/connectors/src", "", "", 200,
			`{"config":{"connector.class":"io.example.FileSource","file":"/f","topic":"t"},"name":"src","tasks":[{"connector":"src","task":0}],"type":"source"}`},
		{"GET", "/connectors/src/config", "", "", 200, `{"connector.class":"io.example.FileSource","file":"/f","topic":"t"}`},
		{"GET", "/connectors/src/status", "", "", 200,
			`{"connector":{"state":"RUNNING","worker_id":"worker:8083"},"name":"src","tasks":[{"id":0,"state":"RUNNING","worker_id":"worker:8083"}],"type":"source"}`},
		{"GET", "/connectors/src/topics", "", "", 200, `{"src":{"topics":["t"]}}`},
		{"GET", "/connectors?expand=status", "", "", 200,
			`{"src":{"status":{"connector":{"state":"RUNNING","worker_id":"worker:8083"},"name":"src","tasks":[{"id":0,"state":"RUNNING","worker_id":"worker:8083"}],"type":"source"}}}`},
		{"GET", "/connectors?expand=info&expand=status", "", "", 200,
			`{"src":{"info":{"config":{"connector.class":"io.example.FileSource","file":"/f","topic":"t"},"name":"src","tasks":[{"connector":"src","task":0}],"type":"source"},` +
				`"status":{"connector":{"state":"RUNNING","worker_id":"worker:8083"},"name":"src","tasks":[{"id":0,"state":"RUNNING","worker_id":"worker:8083"}],"type":"source"}}}`},
		{"GET", "/connectors/nope", "", "", 404, `{"error_code":404,"message":"Connector nope not found"}`},
		{"PUT", "/connectors", "application/json", `{}`, 405, `{"error_code":405,"message":"HTTP 405 Method Not Allowed"}`},
		{"GET", "/connector-plugins", "", "", 200,
			`[{"class":"io.example.FileSource","type":"source","version":"1.0"},{"class":"io.example.FileSink","type":"sink","version":"1.0"}]`},
		{"PUT", "/connector-plugins/FileSource/config/validate", "application/json", `{"connector.class":"io.example.FileSink"}`, 400,
			`{"error_code":400,"message":"Included connector type io.example.FileSink does not match request type FileSource"}`},
		{"PUT", "/connector-plugins/io.example.Nope/config/validate", "application/json", `{}`, 500,
			`{"error_code":500,"message":"Failed to find any class that implements Connector and which name matches io.example.Nope"}`},
		{"PUT", "/connector-plugins/io.example.FileSource/config/validate", "application/json", `{"connector.class":"io.example.FileSource","topic":"t"}`, 200,
			`{"configs":[` +
				`{"definition":{"default_value":null,"dependents":[],"display_name":"file","documentation":"","group":"Common","importance":"HIGH","name":"file","order":0,"required":true,"type":"STRING","width":"MEDIUM"},` +
				`"value":{"errors":["Missing required configuration \"file\" which has no default value."],"name":"file","recommended_values":[],"value":null,"visible":true}},` +
				`{"definition":{"default_value":null,"dependents":[],"display_name":"connector.class","documentation":"","group":"Common","importance":"HIGH","name":"connector.class","order":0,"required":false,"type":"STRING","width":"MEDIUM"},` +
				`"value":{"errors":[],"name":"connector.class","recommended_values":[],"value":"io.example.FileSource","visible":true}},` +
				`{"definition":{"default_value":null,"dependents":[],"display_name":"topic","documentation":"","group":"Common","importance":"HIGH","name":"topic","order":0,"required":false,"type":"STRING","width":"MEDIUM"},` +
				`"value":{"errors":[],"name":"topic","recommended_values":[],"value":"t","visible":true}}` +
				`],"error_count":1,"groups":["Common"],"name":"io.example.FileSource"}`},
		{"DELETE", "/connectors/src", "", "", 204, ``},
		{"DELETE", "/connectors/src", "", "", 404, `{"error_code":404,"message":"Connector src not found"}`},
		{"GET", "/nowhere", "", "", 404, `{"error_code":404,"message":"HTTP 404 Not Found"}`},
	}
	for _, s := range steps {
		status, body := do(t, f, s.method, s.path, s.ctype, s.body, "")
		if status != s.status || body != s.want {
			t.Errorf("%s %s: %d %s\nwant %d %s", s.method, s.path, status, body, s.status, s.want)
		}
	}
}

// TestFakeStates: failures, states and an older Connect's missing
// topics endpoint, and the basic-auth filter's plain-text refusal.
func TestFakeStates(t *testing.T) {
	f := New()
	defer f.Close()
	do(t, f, "POST", "/connectors", "application/json", `{"name":"s","config":{"connector.class":"FileSink"}}`, "")
	f.SetState("s", "FAILED", "java.lang.Error: boom", "FAILED", "RUNNING")
	if _, body := do(t, f, "GET", "/connectors/s/status", "", "", ""); body != `{"connector":{"state":"FAILED","trace":"java.lang.Error: boom","worker_id":"worker:8083"},"name":"s",`+
		`"tasks":[{"id":0,"state":"FAILED","trace":"java.lang.Error: boom","worker_id":"worker:8083"},{"id":1,"state":"RUNNING","worker_id":"worker:8083"}],"type":"sink"}` {
		t.Errorf("FAILED status: %s", body)
	}
	f.WithoutTopics()
	if status, _ := do(t, f, "GET", "/connectors/s/topics", "", "", ""); status != 404 {
		t.Errorf("topics of an older Connect: %d", status)
	}
	f.FailNext(1)
	if status, body := do(t, f, "GET", "/connectors", "", "", ""); status != 409 || !strings.Contains(body, "stale configuration") {
		t.Errorf("rebalancing: %d %s", status, body)
	}
	f.RequireLogin("fred", "pass")
	for auth, want := range map[string]int{"": 401, "Basic ZnJlZDpwYXNz": 200, "Basic ZnJlZDp4": 401, "Bearer x": 401} {
		status, body := do(t, f, "GET", "/connectors", "", "", auth)
		if status != want || (status == 401 && body != "User cannot access the resource.") {
			t.Errorf("Authorization %q: %d %s", auth, status, body)
		}
	}
}

func do(t *testing.T, f *Connect, method, path, ctype, body, auth string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, f.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := f.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(data))
}
