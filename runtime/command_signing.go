package runtime

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sqlstream/sqlstream/physical"
)

// Command signing: any Kafka client may write to the command topic, and
// what it writes runs on the next restart. So every command the engine
// appends carries an HMAC-SHA256 of its topic, key and value in the
// header signatureHeader, and replay runs only records whose signature
// checks; the others are logged and skipped.
//
// The key is PropCommandSecret when set (shared configuration: servers
// that share a service id share a command topic, and each must verify
// what the others wrote), else a random key kept in the data directory
// (keyFile, created on first start with mode 0600, beside the state
// directory so that losing the state keeps it).
//
// Migration: a command topic written before signing holds unsigned
// records. The first start that signs (no fenceFile yet) writes the fence,
// the offset from which signatures are required: the topic's end when
// none of its records is signed (all predate signing), else 0. Records
// below the fence run unsigned, with a warning, on every restart (replay
// rebuilds the catalog from them); nothing written later can get below
// it.
const (
	signatureHeader = "sqlstream-signature"
	keyFile         = "command-topic.key"
	fenceFile       = "command-topic.signed-from"
	// PropCommandSecret is the HMAC key of the command topic (sqlstream's
	// own, a secret: shown [hidden]).
	PropCommandSecret = "sqlstream.command.topic.secret"
)

// commandSigner signs and verifies command records.
type commandSigner struct {
	key []byte
	dir string // where fenceFile lives
}

// loadCommandSigner returns the signer of the data directory dir: keyed by
// secret when it is set, else by dir's key file (created if missing).
func loadCommandSigner(dir, secret string) (*commandSigner, error) {
	if secret != "" {
		if len(secret) < 16 {
			return nil, fmt.Errorf("%s must be at least 16 characters long", PropCommandSecret)
		}
		return &commandSigner{key: []byte(secret), dir: dir}, nil
	}
	key, err := readOrCreateKey(filepath.Join(dir, keyFile))
	if err != nil {
		return nil, fmt.Errorf("command topic key: %w", err)
	}
	return &commandSigner{key: key, dir: dir}, nil
}

func readOrCreateKey(path string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err == nil {
		key, err := hex.DecodeString(strings.TrimSpace(string(raw)))
		if err != nil || len(key) < 16 {
			return nil, fmt.Errorf("%s is not a hex key of at least 16 bytes: restore it, or remove it and set %s", path, PropCommandSecret)
		}
		return key, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	_, err = f.WriteString(hex.EncodeToString(key) + "\n")
	return key, errors.Join(err, f.Close())
}

// signature is the header value of a command record.
func (s *commandSigner) signature(topic string, key, value []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	for _, part := range [][]byte{[]byte(topic), key, value} {
		m.Write([]byte(strconv.Itoa(len(part)) + ":"))
		m.Write(part)
	}
	return []byte(hex.EncodeToString(m.Sum(nil)))
}

// sign adds the signature header to r.
func (s *commandSigner) sign(r *physical.OutRecord) {
	r.Headers = append(r.Headers, physical.Header{Key: signatureHeader, Value: s.signature(r.Topic, r.Key, r.Value)})
}

// errUnsigned is a record without a signature at or past the fence.
var errUnsigned = errors.New("the record has no " + signatureHeader + " header: the engine did not write it")

// verify says why r must not run; fence is from fence.
func (s *commandSigner) verify(r *physical.InRecord, fence int64) error {
	sig, ok := signatureOf(r)
	if !ok {
		if r.Offset < fence {
			return nil
		}
		return errUnsigned
	}
	if !hmac.Equal(sig, s.signature(r.Topic, r.Key, r.Value)) {
		return fmt.Errorf("bad signature: written by another key or altered (servers sharing a command topic need the same %s)", PropCommandSecret)
	}
	return nil
}

func signatureOf(r *physical.InRecord) ([]byte, bool) {
	for _, h := range r.Headers {
		if h.Key == signatureHeader {
			return h.Value, true
		}
	}
	return nil, false
}

// fence returns the offset from which records must be signed: the one the
// data directory recorded, or, on the first start that signs, the end of
// recs when none of them is signed (they predate signing), else 0.
func (s *commandSigner) fence(recs []*physical.InRecord, log *slog.Logger) (int64, error) {
	path := filepath.Join(s.dir, fenceFile)
	raw, err := os.ReadFile(path)
	if err == nil {
		return strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	fence := int64(0)
	if len(recs) > 0 && !anySigned(recs) {
		fence = recs[len(recs)-1].Offset + 1
		log.Warn("the command topic predates command signing: its commands are accepted unsigned, later ones must be signed",
			"commands", len(recs), "signed_from_offset", fence, "marker", path)
	}
	return fence, os.WriteFile(path, []byte(strconv.FormatInt(fence, 10)+"\n"), 0o600)
}

func anySigned(recs []*physical.InRecord) bool {
	for _, r := range recs {
		if _, ok := signatureOf(r); ok {
			return true
		}
	}
	return false
}
