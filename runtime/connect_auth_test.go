package runtime_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/runtime/connect/connecttest"
)

// TestConnectCredentialsFile: with ksql.connect.basic.auth.credentials.source
// FILE the connector statements send the file's username and password to
// Kafka Connect, never the request's header (ksqlDB's
// DefaultConnectClientFactory), and a reloaded file's new ones; a file
// that cannot be read fails the statement naming it. A FILE source
// without a file refuses to start.
func TestConnectCredentialsFile(t *testing.T) {
	fake := connecttest.New()
	defer fake.Close()
	fake.RequireLogin("fred", "pass")
	file := filepath.Join(t.TempDir(), "connect.credentials")
	write := func(text string) {
		if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("username=fred\npassword=pass\n")
	eng, err := runtime.NewTestEngine(map[string]string{"ksql.connect.url": fake.URL,
		"ksql.connect.basic.auth.credentials.source": "FILE", "ksql.connect.basic.auth.credentials.file": file,
		"ksql.connect.basic.auth.credentials.reload": "true"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if got := restText(eng.ExecuteStatement("SHOW CONNECTORS;", nil)); !strings.Contains(got, `"@type":"connector_list"`) {
		t.Fatalf("SHOW CONNECTORS with the file's credentials: %s", got)
	}
	if a := fake.Authorizations(); a[len(a)-1] != "Basic ZnJlZDpwYXNz" {
		t.Errorf("Authorization sent: %q", a[len(a)-1])
	}
	write("username=fred\npassword=changed\n")
	if got := restText(eng.ExecuteStatement("SHOW CONNECTORS;", nil)); !strings.Contains(got, `error 401 {"@type":"generic_error","error_code":40100,"message":"Failed to list connectors: User cannot access the resource."}`) {
		t.Errorf("SHOW CONNECTORS with reloaded, wrong credentials: %s", got)
	}
	write("user=fred\n")
	if got := restText(eng.ExecuteStatement("DROP CONNECTOR c;", nil)); !strings.Contains(got, "error 400 ") ||
		!strings.Contains(got, "Could not read the Kafka Connect credentials file "+file+" (ksql.connect.basic.auth.credentials.file): it provides no username and password") {
		t.Errorf("a file without the keys: %s", got)
	}
	_, err = runtime.NewTestEngine(map[string]string{"ksql.connect.basic.auth.credentials.source": "FILE"})
	if err == nil || !strings.Contains(err.Error(), "'ksql.connect.basic.auth.credentials.file' cannot be empty if 'ksql.connect.basic.auth.credentials.source' is set to 'FILE'") {
		t.Errorf("FILE without a file: %v", err)
	}
}
