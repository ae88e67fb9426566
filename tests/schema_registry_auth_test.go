package tests

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/sr/srfake"
)

// TestRegistryBasicAuth: ksql.schema.registry.basic.auth.user.info reaches
// an external registry that requires it (srfake with WithAuth), and SHOW
// PROPERTIES prints it as [hidden].
func TestRegistryBasicAuth(t *testing.T) {
	t.Parallel()
	fake := srfake.New(srfake.WithAuth("Basic " + base64.StdEncoding.EncodeToString([]byte("reg-user:s3cr3t-pw"))))
	t.Cleanup(fake.Close)
	n := startNodeExternalRegistry(t, "--config", writeConfig(t, "ksql.schema.registry.url="+fake.URL()+
		"\nksql.schema.registry.basic.auth.user.info=reg-user:s3cr3t-pw\n"))
	n.mustKsql(`CREATE STREAM s (a INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON_SR', PARTITIONS=1);`)
	if !fake.SubjectExists("s-value") {
		t.Fatalf("CREATE registered no s-value with basic auth")
	}
	props := fmt.Sprint(n.mustKsql(`SHOW PROPERTIES;`))
	if !strings.Contains(props, "ksql.schema.registry.basic.auth.user.info") {
		t.Fatalf("SHOW PROPERTIES lacks the registry user info: %s", props)
	}
	if strings.Contains(props, "s3cr3t-pw") || !strings.Contains(props, "[hidden]") {
		t.Errorf("SHOW PROPERTIES shows the registry credentials: %s", props)
	}
}
