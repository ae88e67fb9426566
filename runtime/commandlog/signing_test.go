package commandlog

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
)

// TestCommandSignerKeys: a new key is kept in memory until saved, then
// private and reused; no key is made over a signed topic; a damaged key
// file is an error that does not advise removing it; a secret makes no
// key file.
func TestCommandSignerKeys(t *testing.T) {
	dir := t.TempDir()
	s, err := loadCommandSigner(dir, "", false)
	if err != nil || !s.unsaved {
		t.Fatalf("new key: %v unsaved=%v", err, s != nil && s.unsaved)
	}
	if _, err := os.Stat(filepath.Join(dir, keyFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the key file was written before save: %v", err)
	}
	if err := s.save(); err != nil {
		t.Fatal(err)
	}
	again, err := loadCommandSigner(dir, "", true)
	if err != nil || string(again.key) != string(s.key) || again.unsaved {
		t.Errorf("key not reused: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(dir, keyFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v %v", fi, err)
	}
	empty := t.TempDir()
	if _, err := loadCommandSigner(empty, "", true); !errors.Is(err, errNoKey) {
		t.Errorf("no key over a signed topic: %v, want errNoKey", err)
	}
	if _, err := os.Stat(filepath.Join(empty, keyFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a key file was made over a signed topic: %v", err)
	}
	if err := os.WriteFile(filepath.Join(empty, keyFile), []byte("not hex\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = loadCommandSigner(empty, "", true)
	if err == nil || !strings.Contains(err.Error(), "Restore it") || strings.Contains(err.Error(), "remove") {
		t.Errorf("damaged key file: %v", err)
	}
	secretDir := t.TempDir()
	if sec, err := loadCommandSigner(secretDir, "a shared secret of servers", false); err != nil || sec.save() != nil {
		t.Errorf("secret: %v", err)
	}
	if _, err := os.Stat(filepath.Join(secretDir, keyFile)); err == nil {
		t.Errorf("a key file was made although the secret is configured")
	}
	if _, err := loadCommandSigner(t.TempDir(), "short", false); err == nil {
		t.Errorf("a 5-character secret was accepted")
	}
}

// TestCommandFence: the fence of a topic that predates signing is its
// end, kept in the data directory.
func TestCommandFence(t *testing.T) {
	s, _ := loadCommandSigner(t.TempDir(), "a shared secret of servers", false)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	unsigned := []*physical.InRecord{{Offset: 0}, {Offset: 1}}
	if f, err := s.fence(unsigned, log); err != nil || f != 2 {
		t.Errorf("fence of an unsigned topic: %d %v, want 2", f, err)
	}
	if f, err := s.fence(nil, log); err != nil || f != 2 {
		t.Errorf("fence is not kept: %d %v", f, err)
	}
}

// chainRig writes records the way commandLog.appendRecord does.
type chainRig struct {
	s    *commandSigner
	head []byte
	off  int64
}

func (r *chainRig) next(key, value string) *physical.InRecord {
	out := &physical.OutRecord{Topic: "_x_command_topic", Key: []byte(key), Value: []byte(value)}
	r.head = r.s.sign(out, r.head)
	return r.in(out)
}

func (r *chainRig) in(out *physical.OutRecord) *physical.InRecord {
	in := &physical.InRecord{Topic: out.Topic, Key: out.Key, Value: out.Value, Offset: r.off, Headers: out.Headers}
	r.off++
	return in
}

func (r *chainRig) v1(key, value string) *physical.InRecord {
	out := &physical.OutRecord{Topic: "_x_command_topic", Key: []byte(key), Value: []byte(value)}
	out.Headers = []physical.Header{{Key: signatureHeader, Value: r.s.signatureV1(out.Topic, out.Key, out.Value)}}
	return r.in(out)
}

// TestCommandChain: records of the chain run in order; a copy of an
// earlier one, a record of another key and a legacy record after the
// chain start do not; legacy records run only before the chain start.
func TestCommandChain(t *testing.T) {
	s, _ := loadCommandSigner(t.TempDir(), "a shared secret of servers", false)
	rig := &chainRig{s: s}
	unsigned := rig.in(&physical.OutRecord{Topic: "_x_command_topic", Key: []byte("0"), Value: []byte(`{"seq":0}`)})
	legacy := rig.v1("1", `{"seq":1}`)
	start := rig.next(chainStartKey, `{}`)
	drop := rig.next("2", `{"seq":2,"statement":"DROP STREAM x DELETE TOPIC;"}`)
	create := rig.next("3", `{"seq":3,"statement":"CREATE STREAM x …"}`)
	copied := *drop
	copied.Offset = rig.off
	other, _ := loadCommandSigner(t.TempDir(), "another secret of servers", false)
	foreign := (&chainRig{s: other, head: rig.head, off: rig.off + 1}).next("4", `{"seq":4}`)
	lateLegacy := rig.v1("1", `{"seq":1}`)
	lateUnsigned := *unsigned
	lateUnsigned.Offset = 0 // below the fence, but after the start
	want := []struct {
		r   *physical.InRecord
		v   verdict
		err error
	}{
		{unsigned, unsignedLegacy, nil}, {legacy, signedLegacy, nil}, {start, chainStarted, nil},
		{drop, chained, nil}, {create, chained, nil}, {&copied, rejected, errOutOfSequence},
		{foreign, rejected, errBadSignature}, {lateLegacy, rejected, errLegacyAfter}, {&lateUnsigned, rejected, errUnsigned},
	}
	var ch commandChain
	for i, w := range want {
		v, err := ch.check(s, w.r, 1)
		if v != w.v || !errors.Is(err, w.err) {
			t.Errorf("record %d (key %s): %v %v, want %v %v", i, w.r.Key, v, err, w.v, w.err)
		}
	}
	if ch.unverifiable() {
		t.Errorf("a chain of this key's records is unverifiable")
	}
	var theirs commandChain
	for _, r := range []*physical.InRecord{start, drop, create} {
		if v, _ := theirs.check(other, r, 0); v != rejected {
			t.Errorf("another key accepted %s", r.Key)
		}
	}
	if !theirs.unverifiable() {
		t.Errorf("signed records none of which verify are not unverifiable")
	}
}

// TestCommandSignerAdoptsConcurrentKey: two servers whose data
// directories share a parent make their keys at once; the second to save
// adopts the first's key instead of failing, and both sign alike.
func TestCommandSignerAdoptsConcurrentKey(t *testing.T) {
	dir := t.TempDir()
	a, err := loadCommandSigner(dir, "", false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := loadCommandSigner(dir, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if string(a.key) == string(b.key) {
		t.Fatal("two new keys are equal")
	}
	if err := a.save(); err != nil {
		t.Fatal(err)
	}
	if err := b.save(); err != nil {
		t.Fatalf("second save: %v, want the first key adopted", err)
	}
	if string(b.key) != string(a.key) || b.unsaved {
		t.Errorf("second server kept its own key (unsaved=%v)", b.unsaved)
	}
	if string(a.mac([]byte("x"))) != string(b.mac([]byte("x"))) {
		t.Errorf("the two servers sign differently")
	}
}
