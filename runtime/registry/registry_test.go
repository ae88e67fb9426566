package registry

import (
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/runtime/props"
)

// TestNew: no URL is no registry; a truststore that cannot be read is
// an error naming its setting.
func TestNew(t *testing.T) {
	if c, err := New(props.RegistryConfig{URL: "  "}); c != nil || err != nil {
		t.Fatalf("without a URL: %v, %v", c, err)
	}
	if c, err := New(props.RegistryConfig{URL: "http://a:8081, http://b:8081"}); c == nil || err != nil {
		t.Fatalf("two URLs: %v, %v", c, err)
	}
	_, err := New(props.RegistryConfig{URL: "https://a:8081", Trust: t.TempDir() + "/missing.pem"})
	if err == nil || !strings.HasPrefix(err.Error(), props.SchemaRegistryTrust+": ") {
		t.Fatalf("unreadable truststore: %v", err)
	}
}
