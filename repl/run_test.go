package repl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/sqlstream/sqlstream/api"
)

// fakeServer answers the REST calls the REPL makes with canned bodies and
// records each request (path, statements, properties, variables).
type fakeServer struct {
	mu  sync.Mutex
	log []string
	// pushStarted receives when the unbounded push query starts.
	pushStarted chan struct{}
	// pushEnded receives when its request is closed by the client.
	pushEnded chan struct{}
}

func newFakeServer() *fakeServer {
	return &fakeServer{pushStarted: make(chan struct{}, 1), pushEnded: make(chan struct{}, 1)}
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/info":
		writeBody(w, 200, `{"KsqlServerInfo":{"version":"0.29.0","kafkaClusterId":"c","ksqlServiceId":"default_","serverStatus":"RUNNING"}}`)
	case strings.HasPrefix(r.URL.Path, "/is_valid_property/"):
		f.record(r.URL.Path)
		if strings.HasSuffix(r.URL.Path, "ksql.service.id") {
			writeBody(w, 400, `{"@type":"generic_error","error_code":40000,"message":"One or more properties overrides set locally are prohibited by the KSQL server (use UNSET to reset their default value): [ksql.service.id]"}`)
			return
		}
		writeBody(w, 200, "true")
	case r.URL.Path == "/ksql":
		req := f.decode(r)
		f.answerKsql(w, req)
	case r.URL.Path == "/query":
		req := f.decode(r)
		f.answerQuery(w, r, req)
	default:
		writeBody(w, 404, "Not Found")
	}
}

func (f *fakeServer) decode(r *http.Request) api.KsqlRequest {
	var req api.KsqlRequest
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &req)
	line := r.URL.Path + " " + req.Ksql
	if len(req.StreamsProperties) > 0 {
		line += " props=" + sortedJSON(req.StreamsProperties)
	}
	if len(req.SessionVariables) > 0 {
		line += " vars=" + sortedJSON(req.SessionVariables)
	}
	f.record(line)
	return req
}

func sortedJSON(v any) string {
	b, _ := json.Marshal(v) // maps marshal with sorted keys
	return string(b)
}

func (f *fakeServer) record(s string) {
	f.mu.Lock()
	f.log = append(f.log, s)
	f.mu.Unlock()
}

func (f *fakeServer) takeLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := f.log
	f.log = nil
	return l
}

func writeBody(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

func (f *fakeServer) answerKsql(w http.ResponseWriter, req api.KsqlRequest) {
	switch strings.Join(strings.Fields(req.Ksql), " ") {
	case "SHOW STREAMS;":
		writeBody(w, 200, `[{"@type":"streams","statementText":"SHOW STREAMS;","streams":[{"type":"STREAM","name":"PAGEVIEWS","topic":"pageviews","keyFormat":"KAFKA","valueFormat":"JSON","isWindowed":false}],"warnings":[]}]`)
	case "CREATE STREAM S (A INT) WITH (kafka_topic='s', value_format='JSON'); SHOW TABLES;":
		writeBody(w, 200, `[{"@type":"currentStatus","statementText":"CREATE STREAM S (A INT) WITH (kafka_topic='s', value_format='JSON');","commandId":"stream/S/create","commandStatus":{"status":"SUCCESS","message":"Stream created","queryId":null},"commandSequenceNumber":2,"warnings":[]},`+
			`{"@type":"tables","statementText":"SHOW TABLES;","tables":[],"warnings":[]}]`)
	case "DROP STREAM NOPE;":
		writeBody(w, 400, `{"@type":"statement_error","error_code":40001,"message":"Source NOPE does not exist.","statementText":"DROP STREAM NOPE;","entities":[]}`)
	default:
		msg, _ := json.Marshal("line 1:1: unexpected statement " + req.Ksql)
		writeBody(w, 400, fmt.Sprintf(`{"@type":"statement_error","error_code":40001,"message":%s,"statementText":"","entities":[]}`, msg))
	}
}

func (f *fakeServer) answerQuery(w http.ResponseWriter, r *http.Request, req api.KsqlRequest) {
	switch strings.Join(strings.Fields(req.Ksql), " ") {
	case "SELECT * FROM PAGEVIEWS EMIT CHANGES LIMIT 2;":
		writeBody(w, 200, `[{"header":{"queryId":"transient_PAGEVIEWS_1","schema":"`+"`USERID` STRING, `VIEWTIME` BIGINT"+`"}},`+"\n"+
			`{"row":{"columns":["USER_1",1]}},`+"\n"+`{"row":{"columns":["USER_2",2]}},`+"\n"+`{"finalMessage":"Limit Reached"}]`)
	case "PRINT 'pageviews' LIMIT 1;":
		writeBody(w, 200, "rowtime: 2022/12/02 17:22:02.556 Z, key: 18, value: {\"a\":1}, partition: 0\n")
	case "SELECT * FROM PAGEVIEWS EMIT CHANGES;":
		writeBody(w, 200, `[{"header":{"queryId":"transient_PAGEVIEWS_2","schema":"`+"`USERID` STRING"+`"}},`+"\n"+`{"row":{"columns":["USER_1"]}},`+"\n")
		w.(http.Flusher).Flush()
		f.pushStarted <- struct{}{}
		<-r.Context().Done() // an unbounded push query: runs until the client leaves
		f.pushEnded <- struct{}{}
	default:
		writeBody(w, 400, `{"@type":"statement_error","error_code":40001,"message":"line 1:15: SELECT column 'NOPE' cannot be resolved.\nSELECT NOPE FROM PAGEVIEWS;\n              ^","statementText":"","entities":[]}`)
	}
}

// TestRunScript drives Run with a piped script against a fake server:
// statement splitting, client-side SET/UNSET/DEFINE, queries, errors.
//
//	run
//	<script>
//	----
//	<stdout, stderr lines, then the requests the server received>
func TestRunScript(t *testing.T) {
	f := newFakeServer()
	srv := httptest.NewServer(f)
	defer srv.Close()
	datadriven.RunTest(t, "testdata/run", func(t *testing.T, d *datadriven.TestData) string {
		var out, errOut bytes.Buffer
		err := Run(t.Context(), Config{
			ServerURL: srv.URL,
			Stdin:     io.NopCloser(strings.NewReader(d.Input)),
			Stdout:    &out,
			Stderr:    &errOut,
			Width:     60,
		})
		if err != nil {
			t.Fatal(err)
		}
		res := joinOutput(out.String(), errOut.String())
		return res + "requests:\n  " + strings.Join(f.takeLog(), "\n  ") + "\n"
	})
}

// Ctrl-C during an unbounded push query closes its request and returns
// to the prompt; the rest of the script still runs.
func TestInterruptEndsPushQuery(t *testing.T) {
	f := newFakeServer()
	srv := httptest.NewServer(f)
	defer srv.Close()
	interrupt := make(chan struct{})
	out := &watchWriter{watch: "|USER_1", seen: make(chan struct{})}
	go func() {
		<-out.seen // the first row is on screen: the user presses Ctrl-C
		interrupt <- struct{}{}
	}()
	var errOut bytes.Buffer
	err := Run(t.Context(), Config{
		ServerURL: srv.URL,
		Stdin:     io.NopCloser(strings.NewReader("SELECT * FROM PAGEVIEWS EMIT CHANGES;\nSHOW STREAMS;\n")),
		Stdout:    out, Stderr: &errOut, Width: 40, Interrupt: interrupt,
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-f.pushEnded:
	case <-time.After(5 * time.Second):
		t.Fatal("the push query request was not closed")
	}
	got := out.String()
	for _, want := range []string{"|USER_1   ", "Query terminated\n", " PAGEVIEWS   "} {
		if !strings.Contains(got, want) {
			t.Fatalf("output lacks %q:\n%s\nstderr: %s\nrequests: %q", want, got, errOut.String(), f.takeLog())
		}
	}
	if errOut.Len() != 0 {
		t.Fatalf("stderr: %s", errOut.String())
	}
}

func TestConfigValidation(t *testing.T) {
	for _, url := range []string{"", "localhost:8088", "ftp://x"} {
		if err := Run(t.Context(), Config{ServerURL: url, Stdin: io.NopCloser(strings.NewReader(""))}); err == nil {
			t.Errorf("ServerURL %q: want an error", url)
		}
	}
}

// watchWriter collects output and closes seen once watch was written.
type watchWriter struct {
	bytes.Buffer
	watch string
	seen  chan struct{}
	once  sync.Once
}

func (w *watchWriter) Write(p []byte) (int, error) {
	n, err := w.Buffer.Write(p)
	if strings.Contains(w.Buffer.String(), w.watch) {
		w.once.Do(func() { close(w.seen) })
	}
	return n, err
}
