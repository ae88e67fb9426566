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

	"github.com/sqlstream/sqlstream/sql/types"
)

// forwardTimeout bounds one forwarded pull query.
const forwardTimeout = 30 * time.Second

// forwardPull runs the pull query on the server at endpoint over the
// given partitions (POST /query-stream, delimited, with ksqlDB's
// skip-forwarding and partitions request properties, signed as a peer,
// with the user's credentials) and passes its rows, already projected,
// to the client; done reports that LIMIT was reached.
func (e *Engine) forwardPull(t *transient, endpoint string, parts []int32) (done bool, err error) {
	body, err := json.Marshal(map[string]any{
		"sql":               t.sql,
		"properties":        overrides(t.props, e.props),
		"requestProperties": map[string]any{reqSkipForwarding: true, reqPartitions: partitionList(parts)},
	})
	if err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), forwardTimeout)
	defer cancel()
	go func() {
		select {
		case <-t.closed:
			cancel()
		case <-ctx.Done():
		}
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint+"/query-stream", bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/vnd.ksqlapi.delimited.v1")
	if t.auth != "" {
		req.Header.Set("Authorization", t.auth)
	}
	e.peers.sign(req, body)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false, fmt.Errorf("forwarding the pull query to %s: %w", endpoint, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("forwarding the pull query to %s: %s", endpoint, remoteError(resp.Body, resp.Status))
	}
	return readForwarded(t, endpoint, resp.Body)
}

// readForwarded passes the rows of a delimited /query-stream answer (a
// header line, then one JSON array per row, or an error object) to t.
func readForwarded(t *transient, endpoint string, r io.Reader) (bool, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	header := false
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		switch {
		case len(line) == 0:
		case !header:
			header = true
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
func overrides(props, base Properties) map[string]string {
	out := map[string]string{}
	for k, v := range props {
		if base[k] != v {
			out[k] = v
		}
	}
	return out
}
