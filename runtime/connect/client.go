package connect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"time"
)

// attempts is how often a request is tried (ksqlDB's MAX_ATTEMPTS).
const attempts = 3

// Client talks to one Kafka Connect cluster.
type Client struct {
	base    *url.URL
	http    *http.Client
	header  http.Header
	backoff time.Duration // the first wait between attempts, doubled after each
}

// New returns a client of the Connect cluster at rawURL, each request
// bounded by timeout (ksql.connect.request.timeout.ms). authorization,
// when not empty, is sent as the Authorization header.
func New(rawURL string, timeout time.Duration, authorization string) (*Client, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &URLError{URL: rawURL}
	}
	h := http.Header{}
	if authorization != "" {
		h.Set("Authorization", authorization)
	}
	return &Client{base: u, http: &http.Client{Timeout: timeout}, header: h, backoff: 50 * time.Millisecond}, nil
}

// URLError is a Connect URL that is not an http:// or https:// URL.
type URLError struct{ URL string }

func (e *URLError) Error() string {
	return "Could not initialize connect client due to invalid URI: " + e.URL
}

// Error is an answer of Connect with a status the request did not
// expect: the status and Connect's body, as ksqlDB reports them.
type Error struct {
	Status int
	Body   string
}

func (e *Error) Error() string { return e.Body }

// UnreachableError is a Connect cluster that did not answer.
type UnreachableError struct {
	URL string
	Err error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("Connect to %s failed: %v", e.URL, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// IsNotFound says whether err is Connect's 404.
func IsNotFound(err error) bool {
	var ce *Error
	return errors.As(err, &ce) && ce.Status == http.StatusNotFound
}

// do sends one request (body JSON-encoded when not nil), retrying as the
// package doc says, and decodes an answer with one of the want statuses
// into out (when not nil).
func (c *Client) do(ctx context.Context, method string, rel []string, body, out any, want ...int) error {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return err
		}
	}
	wait := c.backoff
	var err error
	for try := 0; try < attempts; try++ {
		if try > 0 {
			select {
			case <-ctx.Done():
				return err
			case <-time.After(wait):
			}
			wait *= 2
		}
		var retry bool
		if retry, err = c.once(ctx, method, rel, payload, out, want); !retry {
			return err
		}
	}
	return err
}

// once sends the request once; retry says whether another attempt may
// succeed.
func (c *Client) once(ctx context.Context, method string, rel []string, payload []byte, out any, want []int) (retry bool, err error) {
	u := *c.base
	escaped := make([]string, len(rel))
	for i, s := range rel {
		escaped[i] = url.PathEscape(s)
	}
	u.Path = path.Join("/", c.base.Path, path.Join(rel...))
	u.RawPath = path.Join("/", c.base.EscapedPath(), path.Join(escaped...))
	req, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(payload))
	if err != nil {
		return false, err
	}
	req.Header = c.header.Clone()
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return ctx.Err() == nil, &UnreachableError{URL: c.base.String(), Err: unwrapURLError(err)}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return true, &UnreachableError{URL: c.base.String(), Err: err}
	}
	if !expected(resp.StatusCode, want) {
		retry = resp.StatusCode >= 500 || resp.StatusCode == http.StatusConflict
		return retry, &Error{Status: resp.StatusCode, Body: string(bytes.TrimSpace(data))}
	}
	if out == nil || len(bytes.TrimSpace(data)) == 0 {
		return false, nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return false, fmt.Errorf("Kafka Connect at %s answered %s /%s with a body that is not the JSON expected: %w", c.base, method, path.Join(rel...), err)
	}
	return false, nil
}

// seg is a request path under the Connect URL, one element per segment
// (a connector name is escaped, never read as several segments).
func seg(parts ...string) []string { return parts }

func expected(status int, want []int) bool {
	for _, w := range want {
		if status == w {
			return true
		}
	}
	return false
}

// unwrapURLError drops net/http's "Get \"url\": " prefix, which the
// message already says.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
