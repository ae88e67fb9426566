package runtime

import (
	"bytes"
	"net/http"
	"testing"
)

// TestPeerSignature: a request signed with the service's key verifies;
// another key, another body, another path or no header does not.
func TestPeerSignature(t *testing.T) {
	p := newPeerSet("http://127.0.0.1:1", peerKey([]byte("shared-secret-of-this-service")), 0)
	body := []byte(`{"timestamp":1}`)
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:2/heartbeat", bytes.NewReader(body))
	p.sign(req, body)
	h := req.Header.Get(PeerHeader)
	if err := p.verify(http.MethodPost, "/heartbeat", h, body); err != nil {
		t.Fatalf("own signature refused: %v", err)
	}
	other := newPeerSet("", peerKey([]byte("another-secret-of-length")), 0)
	for name, err := range map[string]error{
		"other key":  other.verify(http.MethodPost, "/heartbeat", h, body),
		"other body": p.verify(http.MethodPost, "/heartbeat", h, []byte(`{"timestamp":2}`)),
		"other path": p.verify(http.MethodPost, "/lag", h, body),
		"no header":  p.verify(http.MethodPost, "/heartbeat", "", body),
		"no key":     newPeerSet("", nil, 0).verify(http.MethodPost, "/heartbeat", h, body),
	} {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
