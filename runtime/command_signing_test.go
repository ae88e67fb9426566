package runtime

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
)

// TestCommandSigner: a record the signer wrote verifies; an altered one,
// one signed by another key and an unsigned one past the fence do not;
// the key file is created once, private, and reused.
func TestCommandSigner(t *testing.T) {
	dir := t.TempDir()
	s, err := loadCommandSigner(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	out := &physical.OutRecord{Topic: "_x_command_topic", Key: []byte("3"), Value: []byte(`{"seq":3}`)}
	s.sign(out)
	in := func(value string, offset int64, h []physical.Header) *physical.InRecord {
		return &physical.InRecord{Topic: out.Topic, Key: out.Key, Value: []byte(value), Offset: offset, Headers: h}
	}
	if err := s.verify(in(`{"seq":3}`, 5, out.Headers), 0); err != nil {
		t.Errorf("own record: %v", err)
	}
	if err := s.verify(in(`{"seq":4}`, 5, out.Headers), 0); err == nil {
		t.Errorf("altered record verified")
	}
	other, _ := loadCommandSigner(t.TempDir(), "a shared secret of servers")
	if err := other.verify(in(`{"seq":3}`, 5, out.Headers), 0); err == nil {
		t.Errorf("record of another key verified")
	}
	// Two servers (two data directories) with the same secret verify
	// each other's records; no key file is made.
	peerDir := t.TempDir()
	peer, _ := loadCommandSigner(peerDir, "a shared secret of servers")
	shared := &physical.OutRecord{Topic: out.Topic, Key: out.Key, Value: out.Value}
	other.sign(shared)
	if err := peer.verify(in(`{"seq":3}`, 5, shared.Headers), 0); err != nil {
		t.Errorf("record of a server with the same secret: %v", err)
	}
	if _, err := os.Stat(filepath.Join(peerDir, keyFile)); err == nil {
		t.Errorf("a key file was made although the secret is configured")
	}
	if _, err := loadCommandSigner(t.TempDir(), "short"); err == nil {
		t.Errorf("a 5-character secret was accepted")
	}
	if err := s.verify(in(`{}`, 5, nil), 5); !errors.Is(err, errUnsigned) {
		t.Errorf("unsigned at the fence: %v", err)
	}
	if err := s.verify(in(`{}`, 4, nil), 5); err != nil {
		t.Errorf("unsigned below the fence: %v", err)
	}
	again, err := loadCommandSigner(dir, "")
	if err != nil || string(again.key) != string(s.key) {
		t.Errorf("key not reused: %v", err)
	}
	fi, err := os.Stat(filepath.Join(dir, keyFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v %v", fi.Mode(), err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if f, err := s.fence([]*physical.InRecord{in(`{}`, 0, nil), in(`{}`, 1, nil)}, log); err != nil || f != 2 {
		t.Errorf("fence of an unsigned topic: %d %v, want 2", f, err)
	}
	if f, err := s.fence(nil, log); err != nil || f != 2 {
		t.Errorf("fence is not kept: %d %v", f, err)
	}
}
