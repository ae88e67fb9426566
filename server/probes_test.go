package server

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// readyEngine is the fake engine with a readiness answer.
type readyEngine struct {
	*fakeEngine
	err error
}

func (r readyEngine) Ready(context.Context) error { return r.err }

// TestProbes: /chc/live answers while the server serves; /chc/ready
// answers 503 with error 50302 and the engine's reason until the engine
// is ready, then 200 {} like ksqlDB.
func TestProbes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		engine Engine
		path   string
		status int
		body   string
	}{
		{"live", readyEngine{newFakeEngine(), errors.New("restoring CTAS_T_1")}, "/chc/live", http.StatusOK, "{}"},
		{"not ready", readyEngine{newFakeEngine(), errors.New("restoring CTAS_T_1")}, "/chc/ready", http.StatusServiceUnavailable,
			`{"@type":"generic_error","error_code":50302,"message":"restoring CTAS_T_1"}`},
		{"ready", readyEngine{newFakeEngine(), nil}, "/chc/ready", http.StatusOK, "{}"},
		{"no readiness", newFakeEngine(), "/chc/ready", http.StatusOK, "{}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			New(tc.engine).Handler().ServeHTTP(rec, localRequest("GET", tc.path, nil))
			if rec.Code != tc.status || strings.TrimSpace(rec.Body.String()) != tc.body {
				t.Fatalf("%s: %d %s, want %d %s", tc.path, rec.Code, rec.Body.String(), tc.status, tc.body)
			}
		})
	}
}
