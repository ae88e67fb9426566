package peer

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestForward: a forwarded pull query is signed as a peer, carries the
// user's credentials, the client's properties and the partitions to read;
// its rows arrive as raw JSON values, an error object ends them with the
// peer's message, and a peer that refuses fails before any row.
func TestForward(t *testing.T) {
	auth := NewAuth(Key([]byte("shared-secret-of-this-service")))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := auth.Verify(r.Method, r.URL.Path, r.Header.Get(Header), body); err != nil || r.Header.Get("Authorization") != "Basic dTpw" {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"message":"not a peer"}`)
			return
		}
		var req struct {
			SQL   string            `json:"sql"`
			Props map[string]string `json:"properties"`
			Req   map[string]any    `json:"requestProperties"`
		}
		if err := json.Unmarshal(body, &req); err != nil || req.Props["auto.offset.reset"] != "earliest" ||
			req.Req[RequestSkipForwarding] != true || req.Req[RequestPartitions] != "1,3" {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"message":"bad forward"}`)
			return
		}
		io.WriteString(w, "{\"queryId\":\"q\"}\n[\"a\",1]\n[\"b\",2]\n")
		if strings.Contains(req.SQL, "fail") {
			io.WriteString(w, "{\"message\":\"store gone\"}\n")
		}
	}))
	defer srv.Close()
	req := ForwardRequest{SQL: "SELECT * FROM t;", Props: map[string]string{"auto.offset.reset": "earliest"},
		Partitions: []int32{1, 3}, Authorization: "Basic dTpw", Done: make(chan struct{})}

	f, err := OpenForward(auth, srv.URL, req)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	stopped, err := f.Rows(func(vals []any) bool {
		b, _ := json.Marshal(vals)
		rows = append(rows, string(b))
		return true
	})
	f.Close()
	if err != nil || stopped || strings.Join(rows, " ") != `["a",1] ["b",2]` {
		t.Fatalf("rows %v, stopped %v, err %v", rows, stopped, err)
	}

	req.SQL = "SELECT * FROM fail;"
	f, err = OpenForward(auth, srv.URL, req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Rows(func([]any) bool { return true }); err == nil || !strings.Contains(err.Error(), "store gone") {
		t.Fatalf("an error object ends the rows with its message: %v", err)
	}
	f.Close()

	if _, err := OpenForward(NewAuth(Key([]byte("another-secret-of-length"))), srv.URL, req); err == nil || !strings.Contains(err.Error(), "not a peer") {
		t.Fatalf("a refused forward: %v", err)
	}
}

func TestPartitionsRoundTrip(t *testing.T) {
	ps, err := ParsePartitions(FormatPartitions([]int32{0, 4, 11}))
	if err != nil || len(ps) != 3 || ps[2] != 11 {
		t.Fatalf("%v %v", ps, err)
	}
	if _, err := ParsePartitions("1,-2"); err == nil {
		t.Fatal("a negative partition is an error")
	}
	if ps, err := ParsePartitions(""); err != nil || ps == nil || len(ps) != 0 {
		t.Fatalf("empty list: %v %v", ps, err)
	}
}
