package repl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/sqlstream/sqlstream/api"
)

const mediaKsqlV1 = "application/vnd.ksql.v1+json"

// client talks to the server's REST API.
type client struct {
	base  string // without trailing slash and userinfo
	http  *http.Client
	creds credentials
}

func newClient(cfg *Config) *client {
	base, creds := cfg.splitCredentials()
	return &client{base: strings.TrimSuffix(base, "/"), http: cfg.HTTPClient, creds: creds}
}

// setBase points the client at another server (the SERVER command); the
// credentials stay unless the URL carries its own.
func (c *client) setBase(raw string) {
	cfg := Config{ServerURL: raw}
	base, creds := cfg.splitCredentials()
	c.base = strings.TrimSuffix(base, "/")
	if creds != (credentials{}) {
		c.creds = creds
	}
}

// execute sends statements to POST /ksql.
func (c *client) execute(ctx context.Context, req api.KsqlRequest) ([]api.Entity, error) {
	resp, err := c.post(ctx, "/ksql", req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("reading the response of %s: %w", c.base+"/ksql", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, api.DecodeError(resp.StatusCode, body)
	}
	return api.DecodeEntities(body)
}

// query starts a SELECT or PRINT with POST /query. The caller reads and
// closes the response body; errors before the first row are returned.
func (c *client) query(ctx context.Context, req api.KsqlRequest) (io.ReadCloser, error) {
	resp, err := c.post(ctx, "/query", req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return nil, api.DecodeError(resp.StatusCode, body)
	}
	return resp.Body, nil
}

// isValidProperty asks GET /is_valid_property/{name}.
func (c *client) isValidProperty(ctx context.Context, name string) error {
	return c.get(ctx, "/is_valid_property/"+url.PathEscape(name), new(bool))
}

// info fetches GET /info.
func (c *client) info(ctx context.Context) (api.ServerInfo, error) {
	var body api.ServerInfoBody
	err := c.get(ctx, "/info", &body)
	return body.KsqlServerInfo, err
}

func (c *client) get(ctx context.Context, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", mediaKsqlV1)
	c.creds.apply(req)
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("cannot reach the server at %s: %w", c.base, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return api.DecodeError(resp.StatusCode, body)
	}
	return json.Unmarshal(body, out)
}

func (c *client) post(ctx context.Context, path string, body any) (*http.Response, error) {
	data, err := api.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", mediaKsqlV1)
	req.Header.Set("Accept", mediaKsqlV1)
	c.creds.apply(req)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the server at %s: %w", c.base, err)
	}
	return resp, nil
}
