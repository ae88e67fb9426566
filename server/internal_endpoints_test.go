package server

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/api"
)

// peerEngine is a fakeEngine with the inter-node endpoints: a request is
// a peer's when its signature header is "good".
type peerEngine struct {
	*fakeEngine
	beats   []api.HeartbeatMessage
	lags    []api.LagReportingMessage
	queries []string // partitions of each forwarded pull query
	auth    []string // the Authorization each forwarded pull query came with
}

func (p *peerEngine) VerifyPeer(_, _, sig string, _ []byte) error {
	if sig != "good" {
		return errors.New("not a peer")
	}
	return nil
}
func (p *peerEngine) Heartbeat(m api.HeartbeatMessage)    { p.beats = append(p.beats, m) }
func (p *peerEngine) LagReport(m api.LagReportingMessage) { p.lags = append(p.lags, m) }
func (p *peerEngine) PeerQuery(ctx context.Context, _ string, _ map[string]any, parts string) (api.RowStream, error) {
	p.queries = append(p.queries, parts)
	p.auth = append(p.auth, api.AuthorizationFrom(ctx))
	return nil, &api.ErrorMessage{ErrorCode: api.CodeBadRequest, Message: "forwarded " + parts}
}

// The inter-node endpoints take only signed requests (40005 otherwise);
// with BASIC authentication /heartbeat and /lag need no user password,
// while a forwarded pull query needs the user's credentials, which reach
// the engine.
func TestInterNodeEndpoints(t *testing.T) {
	users, err := ParseUsers(strings.NewReader("alice: wonderland,admin\n"))
	if err != nil {
		t.Fatal(err)
	}
	eng := &peerEngine{fakeEngine: newFakeEngine()}
	s := New(eng, WithBasicAuth("KsqlServer-Props", []string{"*"}, users))
	forwarded := `{"sql":"SELECT * FROM T;","requestProperties":{"request.ksql.query.pull.skip.forwarding":true,"request.ksql.query.pull.partitions":"1,3"}}`
	for _, tc := range []struct {
		name, path, body, sig, user string
		status                      int
		answer                      string
	}{
		{"unsigned heartbeat", "/heartbeat", `{"hostInfo":{"host":"h","port":1},"timestamp":5}`, "", "", 400, `"error_code":40005`},
		{"forged heartbeat", "/heartbeat", `{"hostInfo":{"host":"h","port":1},"timestamp":5}`, "bad", "", 400, `"error_code":40005`},
		{"signed heartbeat", "/heartbeat", `{"hostInfo":{"host":"h","port":1},"timestamp":5}`, "good", "", 200, `{"isOk":true}`},
		{"signed lag report", "/lag", `{"hostInfo":{"host":"h","port":1},"hostStoreLags":{"stateStoreLags":{},"updateTimeMs":7}}`, "good", "", 200, `{"isOk":true}`},
		{"unsigned forwarded pull", "/query-stream", forwarded, "", "alice", 400, `"error_code":40005`},
		{"forwarded pull without credentials", "/query-stream", forwarded, "good", "", 401, `"error_code":40100`},
		{"forwarded pull", "/query-stream", forwarded, "good", "alice", 400, `forwarded 1,3`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, tc.path, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			req.Host = "127.0.0.1:8088"
			if tc.sig != "" {
				req.Header.Set(PeerHeaderName, tc.sig)
			}
			if tc.user != "" {
				req.SetBasicAuth(tc.user, "wonderland")
			}
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, req)
			if rec.Code != tc.status || !strings.Contains(rec.Body.String(), tc.answer) {
				t.Fatalf("%d %s, want %d with %s", rec.Code, rec.Body, tc.status, tc.answer)
			}
		})
	}
	if len(eng.beats) != 1 || eng.beats[0].HostInfo.Host != "h" || eng.beats[0].Timestamp != 5 {
		t.Errorf("heartbeats %+v", eng.beats)
	}
	if len(eng.lags) != 1 || eng.lags[0].HostStoreLags.UpdateTimeMs != 7 {
		t.Errorf("lag reports %+v", eng.lags)
	}
	if len(eng.queries) != 1 || !strings.HasPrefix(eng.auth[0], "Basic ") {
		t.Errorf("forwarded queries %v with %v", eng.queries, eng.auth)
	}
	// An engine without peers refuses them all.
	plain := New(newFakeEngine())
	req := httptest.NewRequest(http.MethodPost, "/heartbeat", strings.NewReader(`{}`))
	req.Host = "127.0.0.1:8088"
	req.Header.Set(PeerHeaderName, "good")
	rec := httptest.NewRecorder()
	plain.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "40005") {
		t.Errorf("heartbeat to a server without peers: %d %s", rec.Code, rec.Body)
	}
}
