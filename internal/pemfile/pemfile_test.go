package pemfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotPEM: a truststore or keystore that is not PEM (JKS, PKCS12) is
// refused with a message saying only PEM is read; a missing file is the
// file system's error.
func TestNotPEM(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.jks")
	if err := os.WriteFile(path, []byte{0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2}, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCertPool(path); err == nil || !strings.Contains(err.Error(), "only PEM truststores are supported") {
		t.Errorf("truststore: %v", err)
	}
	if _, err := LoadKeyPair(path, path); err == nil || !strings.Contains(err.Error(), "only PEM keystores with an unencrypted key are supported") {
		t.Errorf("keystore: %v", err)
	}
	if _, err := LoadCertPool(path + ".missing"); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}
