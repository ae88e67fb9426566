package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func startLimitedServer(t *testing.T, opts ...Option) (*Server, *fakeEngine) {
	t.Helper()
	f := newFakeEngine()
	s := New(f, append([]Option{WithListen("127.0.0.1:0")}, opts...)...)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	})
	return s, f
}

// rawRequest sends a request head announcing length body bytes and the
// first bytes of body, and returns the connection.
func rawRequest(t *testing.T, addr, path string, length int, body string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", path, addr, length, body)
	return c
}

func readStatus(t *testing.T, c net.Conn) (int, string) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func expectInfo(t *testing.T, s *Server) {
	t.Helper()
	resp, err := h1Client().Get("http://" + s.Addr() + "/info")
	if err != nil {
		t.Fatalf("the server stopped answering: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /info: %d", resp.StatusCode)
	}
}

// TestSlowBodyTimesOut is issue 9.8: a body that does not arrive within
// the body read timeout is a 408 on each non-streaming endpoint, and the
// server keeps answering.
func TestSlowBodyTimesOut(t *testing.T) {
	s, _ := startLimitedServer(t, WithBodyReadTimeout(200*time.Millisecond))
	for _, path := range []string{"/ksql", "/query", "/query-stream", "/close-query", "/inserts-stream"} {
		start := `{"ksql":`
		if path == "/inserts-stream" {
			start = `{"target":`
		}
		status, body := readStatus(t, rawRequest(t, s.Addr(), path, 100, start))
		if status != http.StatusRequestTimeout || !strings.Contains(body, `"error_code":40800`) {
			t.Errorf("%s with a stalled body: %d %s", path, status, body)
		}
	}
	expectInfo(t, s)
}

// TestBodyOverLimitIs413: a body over the limit is a 413, not a 400.
func TestBodyOverLimitIs413(t *testing.T) {
	s, _ := startLimitedServer(t)
	c := rawRequest(t, s.Addr(), "/ksql", maxBodyBytes+1024, `{"ksql":"`)
	go func() {
		chunk := []byte(strings.Repeat("x", 1<<16))
		for sent := 0; sent < maxBodyBytes+1024; sent += len(chunk) {
			if _, err := c.Write(chunk); err != nil {
				return
			}
		}
	}()
	status, body := readStatus(t, c)
	if status != http.StatusRequestEntityTooLarge || !strings.Contains(body, `"error_code":41300`) {
		t.Errorf("a %d-byte body: %d %s", maxBodyBytes+1024, status, body)
	}
	expectInfo(t, s)
}

// TestBodyDeadlineSparesPushQueries: the body read deadline ends with the
// body, so a push query outlives it.
func TestBodyDeadlineSparesPushQueries(t *testing.T) {
	s, f := startLimitedServer(t, WithBodyReadTimeout(100*time.Millisecond))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", "http://"+s.Addr()+"/query-stream",
		strings.NewReader(`{"sql":"SELECT * FROM PAGEVIEWS EMIT CHANGES;"}`))
	resp, err := h1Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	<-f.pushOpen
	select {
	case id := <-f.pushDone:
		t.Fatalf("push query %s ended after the body read timeout", id)
	case <-time.After(500 * time.Millisecond):
	}
}

// TestStalledReaderIsDropped is issue 9.7's slow reader: a client that
// stops reading a busy push query back-pressures it (bounded memory) and
// is dropped once one write blocks past the stalled write timeout, which
// closes its query; the server keeps answering.
func TestStalledReaderIsDropped(t *testing.T) {
	s, f := startLimitedServer(t, WithStalledWriteTimeout(300*time.Millisecond))
	body := `{"sql":"SELECT * FROM FIREHOSE EMIT CHANGES;"}`
	rawRequest(t, s.Addr(), "/query-stream", len(body), body) // never read
	select {
	case id := <-f.pushDone:
		if id != "transient_FIREHOSE_8" {
			t.Fatalf("closed %s", id)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a client that does not read kept its push query running")
	}
	expectInfo(t, s)
}

// TestValueLimiterBoundsEachRow: each JSON value of a streamed body may
// hold up to the limit, counted afresh per value, and a bigger one fails
// as a 413.
func TestValueLimiterBoundsEachRow(t *testing.T) {
	body := &valueLimiter{r: strings.NewReader(`{"A":1}` + "\n" + `{"A":2}` + "\n" + `{"A":"` + strings.Repeat("x", 100) + `"}`), max: 40}
	dec := json.NewDecoder(body)
	for i := 0; i < 2; i++ {
		body.reset()
		var row map[string]any
		if err := dec.Decode(&row); err != nil {
			t.Fatalf("row %d under the limit: %v", i, err)
		}
	}
	body.reset()
	var row map[string]any
	err := dec.Decode(&row)
	if !isLimitError(err) || limitError(err).ErrorCode != codePayloadTooLarge {
		t.Fatalf("a row over the limit: %v", err)
	}
}
