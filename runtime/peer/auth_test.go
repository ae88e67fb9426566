package peer

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestPeerSignature: a request signed with the service's key verifies;
// another key, another body, another path or no header does not.
func TestPeerSignature(t *testing.T) {
	p := NewAuth(Key([]byte("shared-secret-of-this-service")))
	body := []byte(`{"timestamp":1}`)
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:2/heartbeat", bytes.NewReader(body))
	p.Sign(req, body)
	h := req.Header.Get(Header)
	if err := p.Verify(http.MethodPost, "/heartbeat", h, body); err != nil {
		t.Fatalf("own signature refused: %v", err)
	}
	other := NewAuth(Key([]byte("another-secret-of-length")))
	for name, err := range map[string]error{
		"other key":  other.Verify(http.MethodPost, "/heartbeat", h, body),
		"other body": p.Verify(http.MethodPost, "/heartbeat", h, []byte(`{"timestamp":2}`)),
		"other path": p.Verify(http.MethodPost, "/lag", h, body),
		"no header":  p.Verify(http.MethodPost, "/heartbeat", "", body),
		"no key":     NewAuth(nil).Verify(http.MethodPost, "/heartbeat", h, body),
	} {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestPeerReplayRefused is issue 16.11: a signed request verifies once;
// the same header again (a replay within the clock-skew window) is
// refused, while a new signature of the same content passes.
func TestPeerReplayRefused(t *testing.T) {
	p := NewAuth(Key([]byte("shared-secret-of-this-service")))
	body := []byte(`{"timestamp":1}`)
	header := func() string {
		req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:2/heartbeat", bytes.NewReader(body))
		p.Sign(req, body)
		return req.Header.Get(Header)
	}
	h := header()
	if err := p.Verify(http.MethodPost, "/heartbeat", h, body); err != nil {
		t.Fatalf("first use refused: %v", err)
	}
	if err := p.Verify(http.MethodPost, "/heartbeat", h, body); err == nil || !strings.Contains(err.Error(), "replayed") {
		t.Fatalf("replay: %v, want refused as replayed", err)
	}
	if err := p.Verify(http.MethodPost, "/heartbeat", header(), body); err != nil {
		t.Fatalf("a second request of the same content refused: %v", err)
	}
}

// TestSeenPeerMACsExpire: the replay cache forgets a signature once its
// time is past the window (verify refuses it by time from then on), so it
// holds only the window's signatures.
func TestSeenPeerMACsExpire(t *testing.T) {
	var s seenPeerMACs
	t0 := time.Unix(1000, 0)
	if !s.first("a", t0.Add(peerClockSkew), t0) || s.first("a", t0.Add(peerClockSkew), t0.Add(time.Second)) {
		t.Fatal("a signature must be new once, then seen")
	}
	later := t0.Add(peerClockSkew + 2*time.Second)
	if !s.first("b", later.Add(peerClockSkew), later) {
		t.Fatal("b is new")
	}
	if _, ok := s.expires["a"]; ok || len(s.expires) != 1 {
		t.Fatalf("expired signature kept: %v", s.expires)
	}
}
