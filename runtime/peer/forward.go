package peer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The request properties of a forwarded pull query (ksqlDB's): the peer
// answers from its own state only, over the partitions listed.
const (
	RequestSkipForwarding = "request.ksql.query.pull.skip.forwarding"
	RequestPartitions     = "request.ksql.query.pull.partitions"
)

// forwardTimeout bounds one forwarded pull query.
const forwardTimeout = 30 * time.Second

// ForwardRequest is a pull query this server sends another to answer.
type ForwardRequest struct {
	SQL        string
	Props      map[string]string // what the client set for the query
	Partitions []int32           // the partitions the peer reads
	// Authorization is the user's header, passed on so the peer checks
	// the user too ("" for none).
	Authorization string
	// Done, closed when the query ends, cancels the forward.
	Done <-chan struct{}
}

// Forward is a pull query a peer answered 200 to, its header read and its
// rows not yet.
type Forward struct {
	Endpoint   string
	Partitions []int32
	body       io.ReadCloser
	sc         *bufio.Scanner
	cancel     context.CancelFunc
}

// OpenForward starts the pull query r on the server at endpoint (POST
// /query-stream, delimited, with the skip-forwarding and partitions
// request properties, signed by auth as a peer, with the user's
// credentials) and reads its answer up to the header line, before any
// row: a peer that cannot answer fails here, while another host may
// still be tried.
func OpenForward(auth *Auth, endpoint string, r ForwardRequest) (*Forward, error) {
	body, err := json.Marshal(map[string]any{
		"sql":               r.SQL,
		"properties":        r.Props,
		"requestProperties": map[string]any{RequestSkipForwarding: true, RequestPartitions: FormatPartitions(r.Partitions)},
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), forwardTimeout)
	go func() {
		select {
		case <-r.Done:
			cancel()
		case <-ctx.Done():
		}
	}()
	resp, err := postForward(ctx, auth, endpoint, r.Authorization, body)
	if err != nil {
		cancel()
		return nil, err
	}
	f := &Forward{Endpoint: endpoint, Partitions: r.Partitions, body: resp.Body, sc: bufio.NewScanner(resp.Body), cancel: cancel}
	f.sc.Buffer(make([]byte, 64<<10), 16<<20)
	if err := f.readHeader(); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// postForward sends the forwarded query and checks the status.
func postForward(ctx context.Context, auth *Auth, endpoint, authorization string, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint+"/query-stream", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/vnd.ksqlapi.delimited.v1")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	auth.Sign(req, body)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("forwarding the pull query to %s: %w", endpoint, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return nil, fmt.Errorf("forwarding the pull query to %s: %s", endpoint, remoteError(resp.Body, resp.Status))
	}
	return resp, nil
}

// readHeader reads the answer's first line, its header.
func (f *Forward) readHeader() error {
	for f.sc.Scan() {
		if len(bytes.TrimSpace(f.sc.Bytes())) > 0 {
			return nil
		}
	}
	if err := f.sc.Err(); err != nil {
		return fmt.Errorf("the pull query on %s: %w", f.Endpoint, err)
	}
	return fmt.Errorf("the pull query on %s answered nothing", f.Endpoint)
}

// Close ends the forward.
func (f *Forward) Close() {
	f.body.Close()
	f.cancel()
}

// Rows passes the rows of the delimited /query-stream answer, its header
// read (one JSON array per row, or an error object), to row, each value
// a json.RawMessage; stopped is true when row returned false.
func (f *Forward) Rows(row func(vals []any) bool) (stopped bool, err error) {
	for f.sc.Scan() {
		line := bytes.TrimSpace(f.sc.Bytes())
		switch {
		case len(line) == 0:
		case line[0] == '{':
			return false, fmt.Errorf("the pull query on %s failed: %s", f.Endpoint, remoteError(bytes.NewReader(line), "error"))
		default:
			var cols []json.RawMessage
			if err := json.Unmarshal(line, &cols); err != nil {
				return false, fmt.Errorf("a row from %s: %w", f.Endpoint, err)
			}
			vals := make([]any, len(cols))
			for i, c := range cols {
				vals[i] = json.RawMessage(bytes.Clone(c))
			}
			if !row(vals) {
				return true, nil
			}
		}
	}
	return false, f.sc.Err()
}

// remoteError is the message of a peer's error body, or fallback.
func remoteError(r io.Reader, fallback string) string {
	var m struct {
		Message string `json:"message"`
	}
	raw, _ := io.ReadAll(io.LimitReader(r, 1<<16))
	if json.Unmarshal(raw, &m) == nil && m.Message != "" {
		return m.Message
	}
	return fallback
}

// FormatPartitions renders partitions for RequestPartitions.
func FormatPartitions(ps []int32) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = strconv.Itoa(int(p))
	}
	return strings.Join(s, ",")
}

// ParsePartitions reads RequestPartitions; the result is never nil.
func ParsePartitions(s string) ([]int32, error) {
	out := []int32{}
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.ParseInt(f, 10, 32)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("bad partition %q in %s", f, RequestPartitions)
		}
		out = append(out, int32(n))
	}
	return out, nil
}
