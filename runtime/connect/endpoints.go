package connect

import (
	"context"
	"net/http"
)

// Connectors lists the connectors' names (GET /connectors).
func (c *Client) Connectors(ctx context.Context) ([]string, error) {
	var out []string
	return out, c.do(ctx, http.MethodGet, seg("connectors"), nil, &out, http.StatusOK)
}

// Describe returns a connector's info (GET /connectors/{name}).
func (c *Client) Describe(ctx context.Context, name string) (ConnectorInfo, error) {
	var out ConnectorInfo
	return out, c.do(ctx, http.MethodGet, seg("connectors", name), nil, &out, http.StatusOK)
}

// Status returns a connector's state and its tasks'
// (GET /connectors/{name}/status).
func (c *Client) Status(ctx context.Context, name string) (StateInfo, error) {
	var out StateInfo
	return out, c.do(ctx, http.MethodGet, seg("connectors", name, "status"), nil, &out, http.StatusOK)
}

// Topics returns the topics a connector uses
// (GET /connectors/{name}/topics: {name: {"topics": […]}}).
func (c *Client) Topics(ctx context.Context, name string) ([]string, error) {
	var out map[string]map[string][]string
	if err := c.do(ctx, http.MethodGet, seg("connectors", name, "topics"), nil, &out, http.StatusOK); err != nil {
		return nil, err
	}
	return out[name]["topics"], nil
}

// Create creates a connector (POST /connectors {name, config}).
func (c *Client) Create(ctx context.Context, name string, config map[string]string) (ConnectorInfo, error) {
	var out ConnectorInfo
	body := map[string]any{"name": name, "config": config}
	return out, c.do(ctx, http.MethodPost, seg("connectors"), body, &out, http.StatusCreated)
}

// Validate checks a config against its plugin
// (PUT /connector-plugins/{class}/config/validate).
func (c *Client) Validate(ctx context.Context, plugin string, config map[string]string) (ConfigInfos, error) {
	var out ConfigInfos
	return out, c.do(ctx, http.MethodPut, seg("connector-plugins", plugin, "config", "validate"), config, &out, http.StatusOK)
}

// Delete deletes a connector (DELETE /connectors/{name}).
func (c *Client) Delete(ctx context.Context, name string) error {
	return c.do(ctx, http.MethodDelete, seg("connectors", name), nil, nil, http.StatusNoContent, http.StatusOK)
}

// Plugins lists the connector plugins (GET /connector-plugins).
func (c *Client) Plugins(ctx context.Context) ([]PluginInfo, error) {
	var out []PluginInfo
	return out, c.do(ctx, http.MethodGet, seg("connector-plugins"), nil, &out, http.StatusOK)
}
