package peer

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Inter-node requests (heartbeats, lag reports, forwarded pull queries)
// carry Header: "<unix millis>:<nonce>:<hex HMAC-SHA256>" over the
// method, path, that time, the nonce (128 random bits, crypto/rand.Text) and the
// SHA-256 of the body, keyed by a key derived from the command-topic key.
// Servers of one service id must share that key anyway
// (sqlstream.command.topic.secret, see commandlog/signing.go), so holding it
// is what makes a server a peer; anything else is refused. The time
// bounds a signature's life to peerClockSkew either side, and within that
// window the receiver remembers every signature it accepted (seenPeerMACs),
// so a captured request replayed is refused; the nonce makes two honest
// requests of the same content in the same millisecond differ.
const (
	Header        = "X-Sqlstream-Peer"
	peerClockSkew = 30 * time.Second
)

// Auth signs this server's inter-node requests and verifies those of the
// other servers of its service id. A nil Auth, or one without a key,
// signs nothing and refuses every request.
type Auth struct {
	key  []byte       // HMAC key of inter-node requests; nil refuses them
	seen seenPeerMACs // signatures accepted within peerClockSkew (replays are refused)
}

// NewAuth returns the Auth of key, the inter-node key (Key); nil
// key: one that refuses every request.
func NewAuth(key []byte) *Auth { return &Auth{key: key} }

// Keyed reports whether a can sign requests.
func (a *Auth) Keyed() bool { return a != nil && a.key != nil }

// errNotPeer is the answer to an inter-node request without a valid
// signature.
func errNotPeer() error {
	return errors.New("this endpoint accepts only requests from servers of this service id (signed with its shared secret)")
}

// Key derives the inter-node key from the command-topic key, so that
// a signature of one kind never verifies as the other.
func Key(commandKey []byte) []byte {
	if len(commandKey) == 0 {
		return nil
	}
	m := hmac.New(sha256.New, commandKey)
	m.Write([]byte("sqlstream inter-node requests v1"))
	return m.Sum(nil)
}

func peerMAC(key []byte, method, path string, at int64, nonce string, body []byte) string {
	sum := sha256.Sum256(body)
	m := hmac.New(sha256.New, key)
	m.Write([]byte(method + "\n" + path + "\n" + strconv.FormatInt(at, 10) + "\n" + nonce + "\n" + hex.EncodeToString(sum[:])))
	return hex.EncodeToString(m.Sum(nil))
}

// Sign sets Header on an inter-node request whose body is body.
func (a *Auth) Sign(req *http.Request, body []byte) {
	at := time.Now().UnixMilli()
	nonce := rand.Text()
	req.Header.Set(Header, strconv.FormatInt(at, 10)+":"+nonce+":"+peerMAC(a.key, req.Method, req.URL.Path, at, nonce, body))
}

// Verify checks a request's Header value, and that it was not
// accepted before.
func (a *Auth) Verify(method, path, header string, body []byte) error {
	if !a.Keyed() {
		return errNotPeer()
	}
	parts := strings.SplitN(header, ":", 3)
	if len(parts) != 3 {
		return errNotPeer()
	}
	at, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil {
		return errNotPeer()
	}
	now := time.Now()
	if d := now.Sub(time.UnixMilli(at)); d > peerClockSkew || d < -peerClockSkew {
		return errNotPeer()
	}
	if !hmac.Equal([]byte(parts[2]), []byte(peerMAC(a.key, method, path, at, parts[1], body))) {
		return errNotPeer()
	}
	if !a.seen.first(parts[2], time.UnixMilli(at).Add(peerClockSkew), now) {
		return errors.New("this inter-node request was accepted before: a replayed request is refused")
	}
	return nil
}

// seenPeerMACs remembers the signatures of accepted inter-node requests
// until they expire (their time plus peerClockSkew), after which verify
// refuses them by their time anyway. Only valid signatures get in, so its
// size is bounded by what the peers send within the window.
type seenPeerMACs struct {
	mu      sync.Mutex
	expires map[string]time.Time // signature → when verify stops accepting its time
	swept   time.Time
}

// first records mac, valid until expires, and reports whether it was not
// recorded yet. Expired entries are dropped at most once a second.
func (s *seenPeerMACs) first(mac string, expires, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now.Sub(s.swept) >= time.Second {
		for m, exp := range s.expires {
			if now.After(exp) {
				delete(s.expires, m)
			}
		}
		s.swept = now
	}
	if _, ok := s.expires[mac]; ok {
		return false
	}
	if s.expires == nil {
		s.expires = map[string]time.Time{}
	}
	s.expires[mac] = expires
	return true
}
