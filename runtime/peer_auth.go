package runtime

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Inter-node requests (heartbeats, lag reports, forwarded pull queries)
// carry PeerHeader: "<unix millis>:<hex HMAC-SHA256>" over the method,
// path, that time and the SHA-256 of the body, keyed by a key derived
// from the command-topic key. Servers of one service id must share that
// key anyway (sqlstream.command.topic.secret, see command_signing.go), so
// holding it is what makes a server a peer; anything else is refused.
// The time bounds replays to peerClockSkew either side.
const (
	PeerHeader    = "X-Sqlstream-Peer"
	peerClockSkew = 30 * time.Second
)

// errNotPeer is the answer to an inter-node request without a valid
// signature.
func errNotPeer() error {
	return errors.New("this endpoint accepts only requests from servers of this service id (signed with its shared secret)")
}

// peerKey derives the inter-node key from the command-topic key, so that
// a signature of one kind never verifies as the other.
func peerKey(commandKey []byte) []byte {
	if len(commandKey) == 0 {
		return nil
	}
	m := hmac.New(sha256.New, commandKey)
	m.Write([]byte("sqlstream inter-node requests v1"))
	return m.Sum(nil)
}

func peerMAC(key []byte, method, path string, at int64, body []byte) string {
	sum := sha256.Sum256(body)
	m := hmac.New(sha256.New, key)
	m.Write([]byte(method + "\n" + path + "\n" + strconv.FormatInt(at, 10) + "\n" + hex.EncodeToString(sum[:])))
	return hex.EncodeToString(m.Sum(nil))
}

// sign sets PeerHeader on an inter-node request whose body is body.
func (p *peerSet) sign(req *http.Request, body []byte) {
	at := time.Now().UnixMilli()
	req.Header.Set(PeerHeader, strconv.FormatInt(at, 10)+":"+peerMAC(p.key, req.Method, req.URL.Path, at, body))
}

// verify checks a request's PeerHeader value.
func (p *peerSet) verify(method, path, header string, body []byte) error {
	if p == nil || p.key == nil {
		return errNotPeer()
	}
	ts, mac, ok := strings.Cut(header, ":")
	at, err := strconv.ParseInt(ts, 10, 64)
	if !ok || err != nil {
		return errNotPeer()
	}
	if d := time.Since(time.UnixMilli(at)); d > peerClockSkew || d < -peerClockSkew {
		return errNotPeer()
	}
	if !hmac.Equal([]byte(mac), []byte(peerMAC(p.key, method, path, at, body))) {
		return errNotPeer()
	}
	return nil
}

// VerifyPeer implements the server's check of inter-node requests: nil
// when header (PeerHeader's value) signs method, path and body with this
// service's key.
func (e *Engine) VerifyPeer(method, path, header string, body []byte) error {
	return e.peers.verify(method, path, header, body)
}
