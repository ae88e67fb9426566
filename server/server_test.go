package server

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"golang.org/x/net/http2"
)

func startServer(t *testing.T) (*Server, *fakeEngine) {
	t.Helper()
	f := newFakeEngine()
	s := New(f, WithListen("127.0.0.1:0"))
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return s, f
}

// h1Client speaks HTTP/1.1 and does not follow redirects.
func h1Client() *http.Client {
	return &http.Client{
		Transport:     &http.Transport{},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// h2cClient speaks HTTP/2 over plain TCP with prior knowledge.
func h2cClient() *http.Client {
	return &http.Client{Transport: &http2.Transport{
		AllowHTTP: true,
		DialTLSContext: func(ctx context.Context, network, addr string, _ *tls.Config) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		},
	}}
}

// TestHTTP pins status, content type, framing and body bytes per route.
//
//	request method=POST path=/ksql [accept=…] [proto=h2]
//	<body>
//	----
//	HTTP/1.1 200 application/vnd.ksql.v1+json chunked
//	<body>
func TestHTTP(t *testing.T) {
	s, f := startServer(t)
	datadriven.RunTest(t, "testdata/http", func(t *testing.T, d *datadriven.TestData) string {
		switch d.Cmd {
		case "request":
			return doRequest(t, s.Addr(), d)
		case "inserted":
			f.mu.Lock()
			defer f.mu.Unlock()
			out := strings.Join(f.inserted, "\n") + "\n"
			f.inserted = nil
			return out
		}
		return "unknown command " + d.Cmd
	})
}

func doRequest(t *testing.T, addr string, d *datadriven.TestData) string {
	method, path, accept, proto := "GET", "/", "", "h1"
	d.MaybeScanArgs(t, "method", &method)
	d.MaybeScanArgs(t, "path", &path)
	d.MaybeScanArgs(t, "accept", &accept)
	d.MaybeScanArgs(t, "proto", &proto)
	var body io.Reader
	if d.Input != "" {
		body = strings.NewReader(d.Input)
	}
	req, err := http.NewRequest(method, "http://"+addr+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	client := h1Client()
	if proto == "h2" {
		client = h2cClient()
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return describeResponse(resp, got)
}

func describeResponse(resp *http.Response, body []byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d %s", resp.Proto, resp.StatusCode, resp.Header.Get("Content-Type"))
	if len(resp.TransferEncoding) > 0 {
		fmt.Fprintf(&b, " %s", strings.Join(resp.TransferEncoding, ","))
	}
	if loc := resp.Header.Get("Location"); loc != "" {
		fmt.Fprintf(&b, " location=%s", loc)
	}
	b.WriteString("\n")
	b.Write(body)
	if len(body) > 0 && body[len(body)-1] != '\n' {
		b.WriteString("\n<no newline at end>\n")
	}
	return b.String()
}

// A push query ends, and its stream is closed, when the client goes away:
// over HTTP/1.1 (connection closed) and HTTP/2 (stream reset).
func TestPushQueryEndsOnDisconnect(t *testing.T) {
	s, f := startServer(t)
	for _, c := range []struct {
		name   string
		client *http.Client
	}{{"h1", h1Client()}, {"h2", h2cClient()}} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "POST", "http://"+s.Addr()+"/query-stream",
				strings.NewReader(`{"sql":"SELECT * FROM PAGEVIEWS EMIT CHANGES;"}`))
			resp, err := c.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			<-f.pushOpen
			lines := bufio.NewReader(resp.Body)
			for i := 0; i < 2; i++ { // metadata and the first row arrive before the query ends
				if _, err := lines.ReadString('\n'); err != nil {
					t.Fatalf("line %d: %v", i, err)
				}
			}
			cancel()
			select {
			case id := <-f.pushDone:
				if id != "transient_PAGEVIEWS_7" {
					t.Fatalf("closed %s", id)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the push query was not closed after the client went away")
			}
		})
	}
}

// Shutdown ends running push queries instead of waiting for them.
func TestShutdownEndsPushQueries(t *testing.T) {
	f := newFakeEngine()
	s := New(f, WithListen("127.0.0.1:0"))
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	resp, err := h2cClient().Post("http://"+s.Addr()+"/query-stream", "application/json",
		strings.NewReader(`{"sql":"SELECT * FROM PAGEVIEWS EMIT CHANGES;"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	<-f.pushOpen
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	<-f.pushDone
}

// /inserts-stream over HTTP/1.1 is full duplex: each row is acknowledged
// while the client is still sending.
func TestInsertsStreamHTTP1FullDuplex(t *testing.T) {
	s, f := startServer(t)
	pr, pw := io.Pipe()
	req, _ := http.NewRequest("POST", "http://"+s.Addr()+"/inserts-stream", pr)
	respCh := make(chan *http.Response, 1)
	go func() {
		resp, err := h1Client().Do(req)
		if err != nil {
			t.Error(err)
			close(respCh)
			return
		}
		respCh <- resp
	}()
	fmt.Fprintln(pw, `{"target":"PAGEVIEWS"}`)
	fmt.Fprintln(pw, `{"USERID":"u1","VIEWTIME":1}`)
	resp := <-respCh
	if resp == nil {
		t.FailNow()
	}
	defer resp.Body.Close()
	if len(resp.TransferEncoding) == 0 || resp.TransferEncoding[0] != "chunked" {
		t.Fatalf("transfer encoding %v", resp.TransferEncoding)
	}
	acks := bufio.NewReader(resp.Body)
	expectLine(t, acks, `{"status":"ok","seq":0}`)
	fmt.Fprintln(pw, `{"USERID":"u2","VIEWTIME":2.5}`)
	expectLine(t, acks, `{"status":"ok","seq":1}`)
	pw.Close()
	if rest, _ := io.ReadAll(acks); len(rest) != 0 {
		t.Fatalf("unexpected trailing output %q", rest)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	want := "PAGEVIEWS: USERID=u1(string) VIEWTIME=1(json.Number)|PAGEVIEWS: USERID=u2(string) VIEWTIME=2.5(json.Number)"
	if got := strings.Join(f.inserted, "|"); got != want {
		t.Fatalf("inserted %s", got)
	}
}

func expectLine(t *testing.T, r *bufio.Reader, want string) {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("reading %q: %v", want, err)
	}
	if strings.TrimSuffix(line, "\n") != want {
		t.Fatalf("got %q, want %q", line, want)
	}
}

func TestStartFailsOnBadListen(t *testing.T) {
	if err := New(newFakeEngine(), WithListen("no-port")).Start(); err == nil {
		t.Fatal("want an error for a listen address without a port")
	}
}

// Handler serves without Start, e.g. under httptest or another server.
func TestHandlerUnderHTTPTest(t *testing.T) {
	ts := httptest.NewServer(New(newFakeEngine()).Handler())
	defer ts.Close()
	resp, err := ts.Client().Post(ts.URL+"/query", "application/json",
		strings.NewReader(`{"ksql":"SELECT * FROM PAGEVIEWS EMIT CHANGES LIMIT 2;"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || len(resp.TransferEncoding) == 0 || !strings.HasSuffix(string(body), `{"finalMessage":"Limit Reached"}]`) {
		t.Fatalf("status %d, encoding %v, body %s", resp.StatusCode, resp.TransferEncoding, body)
	}
}

// A row of /inserts-stream with invalid UTF-8 in a string is refused with
// the byte it starts at, as a record's JSON is (issue 16.10), not stored
// with U+FFFD in its place; a valid U+FFFD is data like any other.
func TestInsertsStreamInvalidUTF8(t *testing.T) {
	s, f := startServer(t)
	body := "{\"target\":\"PAGEVIEWS\"}\n{\"USERID\":\"\uFFFD ok\",\"VIEWTIME\":1}\n{\"USERID\":\"u\xff2\",\"VIEWTIME\":2}\n"
	resp, err := h1Client().Post("http://"+s.Addr()+"/inserts-stream", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	acks, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(acks), `{"status":"ok","seq":0}`) || !strings.Contains(string(acks), "invalid UTF-8 at byte 12 of the row") {
		t.Fatalf("acks %s", acks)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.inserted) != 1 || !strings.Contains(f.inserted[0], "\uFFFD ok") {
		t.Fatalf("inserted %q, want only the first row", f.inserted)
	}
}
