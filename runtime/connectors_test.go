package runtime_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/runtime/connect/connecttest"
)

// TestConnectors is the golden test of the connector statements against
// connecttest's fake Kafka Connect (there is no real Connect here): each
// exec prints its entities as the REST API sends them, or the error's
// HTTP status and body.
func TestConnectors(t *testing.T) {
	fake := connecttest.New()
	defer fake.Close()
	eng, err := runtime.NewTestEngine(map[string]string{"ksql.connect.url": fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	datadriven.RunTest(t, "testdata/connectors", func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd == "fail" {
			var n int
			d.ScanArgs(t, "n", &n)
			fake.FailNext(n)
			return "ok\n"
		}
		if d.Cmd != "exec" {
			t.Fatalf("unknown command %s", d.Cmd)
		}
		return restText(eng.ExecuteStatement(d.Input, nil))
	})
}

// restText prints entities and an error as the REST API answers them.
func restText(ents []api.Entity, err error) string {
	var b strings.Builder
	for _, e := range ents {
		js, _ := json.Marshal(e)
		b.Write(js)
		b.WriteByte('\n')
	}
	if err != nil {
		status := 0
		var hs interface{ HTTPStatus() int }
		if errors.As(err, &hs) {
			status = hs.HTTPStatus()
		}
		js, _ := json.Marshal(err)
		fmt.Fprintf(&b, "error %d %s\n", status, js)
	}
	return b.String()
}

// TestConnectorsWithoutConnect: an empty ksql.connect.url refuses
// connector statements saying what to set; a Connect that does not
// answer is a 400 naming its URL, as ksqlDB's (minus its Java exception
// class); other statements are not affected.
func TestConnectorsWithoutConnect(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	gone := srv.URL
	srv.Close()
	for _, tc := range []struct{ url, want string }{
		{"", `{"@type":"generic_error","error_code":40000,"message":"Kafka Connect is not configured: set 'ksql.connect.url' to the REST URL of a Connect cluster to run connector statements"}`},
		{gone, `{"@type":"generic_error","error_code":40000,"message":"Connect to ` + gone + ` failed: dial tcp`},
		{"localhost:8083", `{"@type":"generic_error","error_code":40000,"message":"Could not initialize connect client due to invalid URI: localhost:8083 (set 'ksql.connect.url' to an http:// or https:// URL)"}`},
	} {
		eng, err := runtime.NewTestEngine(map[string]string{"ksql.connect.url": tc.url})
		if err != nil {
			t.Fatal(err)
		}
		for _, sql := range []string{"SHOW CONNECTORS;", "DROP CONNECTOR c;", "CREATE SOURCE CONNECTOR c WITH ('connector.class'='x');"} {
			if got := restText(eng.ExecuteStatement(sql, nil)); !strings.Contains(got, "error 400 "+tc.want) {
				t.Errorf("url %q: %s: %s", tc.url, sql, got)
			}
		}
		if _, err := eng.ExecuteStatement("SHOW STREAMS;", nil); err != nil {
			t.Errorf("SHOW STREAMS: %v", err)
		}
		eng.Close()
	}
}
