package commandlog

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
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/props"
)

// Command signing: any Kafka client may write to the command topic, and
// what it writes would run on every server of the service id. So every
// record the engine appends carries an HMAC-SHA256 in the header
// signatureHeader, and only records whose signature checks run; the
// others are logged and skipped. Since format 2 the signature also covers
// the record's place in the topic (see command_chain.go), so that a
// signed record appended again is refused too.
//
// The key is props.CommandSecret when set (shared configuration: servers
// that share a service id share a command topic, and each must verify
// what the others wrote), else a random key kept in the data directory
// (keyFile, mode 0600, beside the state directory so that losing the
// state keeps it). A key file is made only over a command topic that
// holds no signed record, and written just before this server's first
// record (the chain start), never over another (a key written meanwhile
// by a server whose data directory shares the parent is adopted): a
// server that lost its key, or that has another one than the servers of
// its service id, refuses to start rather than sign a second history
// beside theirs.
//
// Migration from before signing: a command topic written before signing
// holds unsigned records. The first start that signs (no fenceFile yet)
// writes the fence, the offset from which signatures are required: the
// topic's end when none of its records is signed (all predate signing),
// else 0. Records below the fence run unsigned, with a warning, on every
// restart; nothing written later can get below it.
const (
	signatureHeader = "sqlstream-signature"
	keyFile         = "command-topic.key"
	fenceFile       = "command-topic.signed-from"
)

// commandSigner signs and verifies command records.
type commandSigner struct {
	key    []byte
	dir    string // where fenceFile (and keyFile) live
	source string // where key comes from, for messages
	// unsaved is a key made for a topic without signed records: saved
	// to keyFile once this server's chain start is in the topic.
	unsaved bool
}

// errNoKey is a command topic with signed records and no key to verify
// them: no secret and no key file.
var errNoKey = errors.New("no key to verify the command topic")

// loadCommandSigner returns the signer of the data directory dir: keyed
// by secret when it is set, else by dir's key file. With neither, it
// makes a new key (see commandSigner.unsaved) when signed is false, and
// fails with errNoKey when the topic holds signed records.
func loadCommandSigner(dir, secret string, signed bool) (*commandSigner, error) {
	if secret != "" {
		if len(secret) < 16 {
			return nil, fmt.Errorf("%s must be at least 16 characters long", props.CommandSecret)
		}
		return &commandSigner{key: []byte(secret), dir: dir, source: props.CommandSecret}, nil
	}
	path := filepath.Join(dir, keyFile)
	key, err := readKey(path)
	if err == nil {
		return &commandSigner{key: key, dir: dir, source: path}, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if signed {
		return nil, fmt.Errorf("%w: %s does not exist and %s is not set", errNoKey, path, props.CommandSecret)
	}
	key = make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	return &commandSigner{key: key, dir: dir, source: path, unsaved: true}, nil
}

// readKey reads a key file. A damaged one is an error that says to
// restore it: a new key would not verify the topic its key signed.
func readKey(path string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(raw)))
	if err != nil || len(key) < 16 {
		return nil, fmt.Errorf("%s is not a hex key of at least 16 bytes: it is damaged. Restore it from a backup, "+
			"or set %s to the key the command topic was signed with; a new key cannot verify the commands its key signed", path, props.CommandSecret)
	}
	return key, nil
}

// save writes an unsaved key to keyFile, private, never over an existing
// file. Another server whose data directory shares the parent (the key
// file's directory) may have written one since this key was made: the
// chain is not started yet (save runs before this server's first signed
// record), so this server adopts that key, which is what servers of one
// service id on one machine need and harmless for other service ids.
func (s *commandSigner) save() error {
	if !s.unsaved {
		return nil
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(s.dir, keyFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		key, rerr := readWrittenKey(path)
		if rerr != nil {
			return rerr
		}
		s.key, s.unsaved = key, false
		return nil
	}
	if err != nil {
		return err
	}
	// One write of the whole line: a concurrent reader sees the file
	// empty or whole (readWrittenKey waits out the empty moment).
	_, err = f.Write([]byte(hex.EncodeToString(s.key) + "\n"))
	if err = errors.Join(err, f.Sync(), f.Close()); err == nil {
		s.unsaved = false
	}
	return err
}

// readWrittenKey reads a key file another server has just created: it
// may still be empty for a moment between its creation and its write.
func readWrittenKey(path string) ([]byte, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		if fi, err := os.Stat(path); err == nil && fi.Size() > 0 || time.Now().After(deadline) {
			return readKey(path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// mac is the hex HMAC of parts, each prefixed by its length.
func (s *commandSigner) mac(parts ...[]byte) []byte {
	m := hmac.New(sha256.New, s.key)
	for _, part := range parts {
		m.Write([]byte(strconv.Itoa(len(part)) + ":"))
		m.Write(part)
	}
	return []byte(hex.EncodeToString(m.Sum(nil)))
}

// signatureV1 is the signature of format 1 (the release before the
// chain): topic, key and value only.
func (s *commandSigner) signatureV1(topic string, key, value []byte) []byte {
	return s.mac([]byte(topic), key, value)
}

// signatureV2 is the signature of format 2: the format, topic, key, value
// and the signature of the record before it in the chain (prev).
func (s *commandSigner) signatureV2(topic string, key, value, prev []byte) []byte {
	return s.mac([]byte(formatV2), []byte(topic), key, value, prev)
}

// sign adds the format 2 headers to r, chained after prev, and returns
// its signature (the chain's head once r is in the topic).
func (s *commandSigner) sign(r *physical.OutRecord, prev []byte) []byte {
	sig := s.signatureV2(r.Topic, r.Key, r.Value, prev)
	r.Headers = append(r.Headers,
		physical.Header{Key: formatHeader, Value: []byte(formatV2)},
		physical.Header{Key: previousHeader, Value: append([]byte(nil), prev...)},
		physical.Header{Key: signatureHeader, Value: sig})
	return sig
}

// errUnsigned is a record without a signature at or past the fence.
var errUnsigned = errors.New("the record has no " + signatureHeader + " header: the engine did not write it")

func headerOf(r *physical.InRecord, key string) ([]byte, bool) {
	for _, h := range r.Headers {
		if h.Key == key {
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
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return 0, err
	}
	return fence, os.WriteFile(path, []byte(strconv.FormatInt(fence, 10)+"\n"), 0o600)
}

func anySigned(recs []*physical.InRecord) bool {
	for _, r := range recs {
		if _, ok := headerOf(r, signatureHeader); ok {
			return true
		}
	}
	return false
}
