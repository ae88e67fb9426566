package runtime

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/sql/types"
)

// forwardTimeout bounds one forwarded pull query.
const forwardTimeout = 30 * time.Second

// forwarded is a pull query a peer answered 200 to, its header read and
// its rows not yet.
type forwarded struct {
	endpoint string
	parts    []int32
	body     io.ReadCloser
	sc       *bufio.Scanner
	cancel   context.CancelFunc
}

// openForward starts the pull query on the server at endpoint over the
// given partitions (POST /query-stream, delimited, with ksqlDB's
// skip-forwarding and partitions request properties, signed as a peer,
// with the user's credentials) and reads its answer up to the header
// line, before any row: a peer that cannot answer fails here, while
// another host may still be tried (pull_failover.go).
func (e *Engine) openForward(t *transient, endpoint string, parts []int32) (*forwarded, error) {
	body, err := json.Marshal(map[string]any{
		"sql":               t.sql,
		"properties":        overrides(t.props, e.props),
		"requestProperties": map[string]any{reqSkipForwarding: true, reqPartitions: partitionList(parts)},
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), forwardTimeout)
	go func() {
		select {
		case <-t.closed:
			cancel()
		case <-ctx.Done():
		}
	}()
	resp, err := e.postForward(ctx, t, endpoint, body)
	if err != nil {
		cancel()
		return nil, err
	}
	f := &forwarded{endpoint: endpoint, parts: parts, body: resp.Body, sc: bufio.NewScanner(resp.Body), cancel: cancel}
	f.sc.Buffer(make([]byte, 64<<10), 16<<20)
	if err := f.readHeader(); err != nil {
		f.close()
		return nil, err
	}
	return f, nil
}

// postForward sends the forwarded query and checks the status.
func (e *Engine) postForward(ctx context.Context, t *transient, endpoint string, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint+"/query-stream", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/vnd.ksqlapi.delimited.v1")
	if t.auth != "" {
		req.Header.Set("Authorization", t.auth)
	}
	e.peers.auth.Sign(req, body)
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
func (f *forwarded) readHeader() error {
	for f.sc.Scan() {
		if len(bytes.TrimSpace(f.sc.Bytes())) > 0 {
			return nil
		}
	}
	if err := f.sc.Err(); err != nil {
		return fmt.Errorf("the pull query on %s: %w", f.endpoint, err)
	}
	return fmt.Errorf("the pull query on %s answered nothing", f.endpoint)
}

func (f *forwarded) close() {
	f.body.Close()
	f.cancel()
}

// readForwarded passes the rows of a delimited /query-stream answer,
// its header read (one JSON array per row, or an error object), to t.
func readForwarded(t *transient, endpoint string, sc *bufio.Scanner) (bool, error) {
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		switch {
		case len(line) == 0:
		case line[0] == '{':
			return false, fmt.Errorf("the pull query on %s failed: %s", endpoint, remoteError(bytes.NewReader(line), "error"))
		default:
			var cols []json.RawMessage
			if err := json.Unmarshal(line, &cols); err != nil {
				return false, fmt.Errorf("a row from %s: %w", endpoint, err)
			}
			vals := make([]any, len(cols))
			for i, c := range cols {
				vals[i] = json.RawMessage(bytes.Clone(c))
			}
			if !t.Row(&types.Row{Values: vals}) {
				return true, nil
			}
		}
	}
	return false, sc.Err()
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

// overrides returns the properties of props that differ from the
// server's base: what the client set for this query.
func overrides(props, base props.Properties) map[string]string {
	out := map[string]string{}
	for k, v := range props {
		if base[k] != v {
			out[k] = v
		}
	}
	return out
}
