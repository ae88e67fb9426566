package connectors

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime/connect"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/sql/ast"
)

// Config is what a connector statement runs with: the engine's Connect
// clients (ksql.connect.*, its URL "" refusing connector statements)
// and the request's Authorization header.
type Config struct {
	Factory    *connect.Factory
	DefaultURL bool   // ksql.connect.url is its default, not a configured one
	Auth       string // the request's Authorization header, forwarded to Connect without a credentials file
}

// Sources describes the streams and tables over topics (DESCRIBE
// CONNECTOR's sources), from the engine's catalog.
type Sources func(ctx context.Context, topics []string) []api.SourceDescription

// Error is an error ksqlDB answers as it is (a generic error body
// with its own HTTP status), not as a statement_error: the connector
// statements' (ksqlDB's KsqlRestException).
type Error struct {
	*api.ErrorMessage
	unreachable bool // Kafka Connect did not answer
}

// Run runs a connector statement against the Kafka Connect cluster at
// ksql.connect.url, as ksqlDB's ConnectExecutor, ListConnectorsExecutor,
// DescribeConnectorExecutor, DropConnectorExecutor and
// ListConnectorPluginsExecutor do. The caller holds no engine lock:
// sources takes what it needs.
func Run(ctx context.Context, stmt ast.Statement, cfg Config, sources Sources) (api.Entity, error) {
	c, err := client(cfg)
	if err != nil {
		return nil, err
	}
	ent, err := run(ctx, c, stmt, sources)
	var re *Error
	if errors.As(err, &re) && re.unreachable && cfg.DefaultURL {
		re.Message += " (" + props.ConnectURL + " is not set; its default, " + props.DefaultConnectURL + ", was tried)"
	}
	return ent, err
}

func run(ctx context.Context, c *connect.Client, stmt ast.Statement, sources Sources) (api.Entity, error) {
	switch st := stmt.(type) {
	case *ast.CreateConnector:
		return createConnector(ctx, c, st)
	case *ast.DropConnector:
		return dropConnector(ctx, c, st)
	case *ast.ListConnectors:
		return listConnectors(ctx, c, st)
	case *ast.ListConnectorPlugins:
		return listConnectorPlugins(ctx, c, st)
	case *ast.DescribeConnector:
		return describeConnector(ctx, c, st, sources)
	}
	return nil, fmt.Errorf("not a connector statement: %s", stmt.Text())
}

// client is a client of the configured Connect cluster, sending the
// credentials file's header (ksql.connect.basic.auth.credentials.*) or
// else the request's Authorization header, as ksqlDB's
// DefaultConnectClientFactory does.
func client(cfg Config) (*connect.Client, error) {
	if cfg.Factory.URL() == "" {
		return nil, &Error{ErrorMessage: &api.ErrorMessage{ErrorCode: api.CodeBadRequest,
			Message: "Kafka Connect is not configured: set '" + props.ConnectURL + "' to the REST URL of a Connect cluster to run connector statements"}}
	}
	c, err := cfg.Factory.Client(cfg.Auth)
	var ue *connect.URLError
	switch {
	case errors.As(err, &ue):
		return nil, &Error{ErrorMessage: &api.ErrorMessage{ErrorCode: api.CodeBadRequest, Message: err.Error() + " (set '" + props.ConnectURL + "' to an http:// or https:// URL)"}}
	case err != nil:
		return nil, &Error{ErrorMessage: &api.ErrorMessage{ErrorCode: api.CodeBadRequest, Message: err.Error()}}
	}
	return c, nil
}

// connectFailure is a failed Connect request as ksqlDB reports it:
// Connect's status and body after what failed ("Failed to drop
// connector: {…}"), or, when Connect did not answer, why (a 400, as
// ksqlDB's KsqlServerException).
func connectFailure(what string, err error) error {
	var ce *connect.Error
	if errors.As(err, &ce) {
		return &Error{ErrorMessage: &api.ErrorMessage{ErrorCode: ce.Status * 100, Message: what + ": " + ce.Body}}
	}
	return &Error{ErrorMessage: &api.ErrorMessage{ErrorCode: api.CodeBadRequest, Message: err.Error()}, unreachable: true}
}

// connectorConfig is the config sent to Connect: the WITH clause's values
// as text, and the connector's name.
func connectorConfig(st *ast.CreateConnector) map[string]string {
	out := map[string]string{}
	for _, p := range st.Config {
		out[p.Name] = literalText(p.Value)
	}
	out["name"] = st.Name
	return out
}

// createConnector: the name is checked against Connect's connectors and
// the config validated by its plugin before the connector is created
// (ksqlDB's ConnectExecutor validate, then execute).
func createConnector(ctx context.Context, c *connect.Client, st *ast.CreateConnector) (api.Entity, error) {
	names, err := c.Connectors(ctx)
	if err != nil {
		return nil, connectFailure("Failed to check for existing connector", err)
	}
	if hasConnector(names, st.Name) {
		msg := "Connector " + st.Name + " already exists"
		if st.IfNotExists {
			return api.WarningEntity{StatementText: ast.MaskedText(st), Message: msg}, nil
		}
		return nil, &Error{ErrorMessage: &api.ErrorMessage{ErrorCode: http.StatusConflict * 100, Message: msg}}
	}
	config := connectorConfig(st)
	if err := validateConnector(ctx, c, config); err != nil {
		return nil, err
	}
	info, err := c.Create(ctx, st.Name, config)
	if err != nil {
		return nil, connectFailure("Failed to create connector", err)
	}
	return api.CreateConnectorEntity{StatementText: ast.MaskedText(st), Info: connectorInfo(info)}, nil
}

func hasConnector(names []string, name string) bool {
	for _, n := range names {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

// validateConnector asks the plugin named by connector.class to validate
// config; every config error is a line "name - error. error" after
// "Validation error: ", in ksqlDB's words.
func validateConnector(ctx context.Context, c *connect.Client, config map[string]string) error {
	class, ok := config["connector.class"]
	switch {
	case !ok:
		return fmt.Errorf("Validation error: Connector config %s contains no connector type", javaMap(config))
	case strings.TrimSpace(class) == "":
		return errors.New("Validation error: Connector type cannot be empty")
	}
	infos, err := c.Validate(ctx, class, config)
	var ce *connect.Error
	if errors.As(err, &ce) {
		return errors.New("Validation error: " + ce.Body)
	} else if err != nil {
		return connectFailure("", err)
	}
	var errs []string
	for _, ci := range infos.Configs {
		if len(ci.Value.Errors) > 0 {
			errs = append(errs, ci.Value.Name+" - "+strings.Join(ci.Value.Errors, ". "))
		}
	}
	if len(errs) > 0 {
		return errors.New("Validation error: " + strings.Join(errs, "\n"))
	}
	return nil
}

// javaMap prints a map as Java's Map.toString ({k=v, …}), keys sorted.
func javaMap(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func dropConnector(ctx context.Context, c *connect.Client, st *ast.DropConnector) (api.Entity, error) {
	if err := c.Delete(ctx, st.Name); err != nil {
		if st.IfExists && connect.IsNotFound(err) {
			return api.WarningEntity{StatementText: ast.MaskedText(st), Message: "Connector '" + st.Name + "' does not exist."}, nil
		}
		return nil, connectFailure("Failed to drop connector", err)
	}
	return api.DropConnectorEntity{StatementText: ast.MaskedText(st), ConnectorName: st.Name}, nil
}

func listConnectorPlugins(ctx context.Context, c *connect.Client, st *ast.ListConnectorPlugins) (api.Entity, error) {
	plugins, err := c.Plugins(ctx)
	if err != nil {
		return nil, connectFailure("Failed to list connector plugins", err)
	}
	out := api.ConnectorPluginsList{StatementText: ast.MaskedText(st)}
	for _, p := range plugins {
		out.Plugins = append(out.Plugins, api.ConnectorPluginInfo{ClassName: p.Class, Type: p.Type, Version: p.Version})
	}
	return out, nil
}

// literalText is a literal's value as Java's toString prints it (a
// string without quotes).
func literalText(lit *ast.Literal) string {
	return fmt.Sprint(lit.Value)
}
