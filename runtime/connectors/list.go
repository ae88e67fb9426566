package connectors

import (
	"context"
	"fmt"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime/connect"
	"github.com/sqlstream/sqlstream/sql/ast"
)

// listConnectors describes every connector of the scope, as ksqlDB's
// ListConnectorsExecutor: one Connect could not describe is a warning
// (and, for SHOW CONNECTORS, a row of unknown type).
func listConnectors(ctx context.Context, c *connect.Client, st *ast.ListConnectors) (api.Entity, error) {
	names, err := c.Connectors(ctx)
	if err != nil {
		return nil, connectFailure("Failed to list connectors", err)
	}
	out := api.ConnectorList{StatementText: ast.MaskedText(st)}
	for _, name := range names {
		info, err := c.Describe(ctx, name)
		if err != nil {
			if st.Scope == ast.AnyConnector {
				out.Connectors = append(out.Connectors, api.SimpleConnectorInfo{Name: name, Type: ptrTo("unknown")})
			}
			out.Warnings = append(out.Warnings, api.Warning{Message: fmt.Sprintf("Could not describe connector %s: %s", name, err)})
			continue
		}
		if !inScope(info.Type, st.Scope) {
			continue
		}
		row := api.SimpleConnectorInfo{Name: name, Type: ptrTo(info.Type), ClassName: ptrTo(info.Config["connector.class"])}
		if status, err := c.Status(ctx, name); err == nil {
			row.State = ptrTo(stateSummary(status))
		} else {
			out.Warnings = append(out.Warnings, api.Warning{Message: fmt.Sprintf("Could not query status of connector %s: %s", name, err)})
		}
		out.Connectors = append(out.Connectors, row)
	}
	return out, nil
}

func ptrTo(s string) *string { return &s }

func inScope(typ string, scope ast.ConnectorScope) bool {
	switch scope {
	case ast.SourceConnector:
		return typ == "source"
	case ast.SinkConnector:
		return typ == "sink"
	}
	return true
}

// stateSummary is ksqlDB's: the connector's state, or for a RUNNING one
// "RUNNING (n/m tasks RUNNING)" ("WARNING (0/m …)" when no task runs).
func stateSummary(s connect.StateInfo) string {
	if s.Connector.State != "RUNNING" {
		return s.Connector.State
	}
	running := 0
	for _, t := range s.Tasks {
		if t.State == "RUNNING" {
			running++
		}
	}
	state := "RUNNING"
	if len(s.Tasks) > 0 && running == 0 {
		state = "WARNING"
	}
	return fmt.Sprintf("%s (%d/%d tasks RUNNING)", state, running, len(s.Tasks))
}

// describeConnector gives a connector's class, status, topics and the
// streams and tables over those topics (ksqlDB's
// DescribeConnectorExecutor; sqlstream asks for the topics of every
// connector, ksqlDB only of the connector classes it knows).
func describeConnector(ctx context.Context, c *connect.Client, st *ast.DescribeConnector, sources Sources) (api.Entity, error) {
	status, err := c.Status(ctx, st.Name)
	if err != nil {
		return nil, connectFailure("Failed to query connector status", err)
	}
	info, err := c.Describe(ctx, st.Name)
	if err != nil {
		return nil, connectFailure("Failed to describe connector", err)
	}
	out := api.ConnectorDescription{StatementText: ast.MaskedText(st), ConnectorClass: info.Config["connector.class"], Status: stateInfo(status)}
	topics, err := c.Topics(ctx, st.Name)
	switch {
	case connect.IsNotFound(err): // an older Connect without the topics endpoint
	case err != nil:
		out.Warnings = append(out.Warnings, api.Warning{Message: "Could not list related topics due to error: " + err.Error()})
	default:
		out.Topics = topics
	}
	if len(out.Topics) > 0 {
		out.Sources = sources(ctx, out.Topics)
	}
	return out, nil
}

func connectorInfo(c connect.ConnectorInfo) api.ConnectorInfo {
	out := api.ConnectorInfo{Name: c.Name, Config: c.Config, Type: c.Type, Tasks: []api.ConnectorTaskID{}}
	for _, t := range c.Tasks {
		out.Tasks = append(out.Tasks, api.ConnectorTaskID{Connector: t.Connector, Task: t.Task})
	}
	return out
}

func stateInfo(s connect.StateInfo) api.ConnectorStateInfo {
	out := api.ConnectorStateInfo{Name: s.Name, Type: s.Type,
		Connector: api.ConnectorState{State: s.Connector.State, WorkerID: s.Connector.WorkerID, Trace: s.Connector.Trace}}
	for _, t := range s.Tasks {
		out.Tasks = append(out.Tasks, api.ConnectorTaskState{ID: t.ID, State: t.State, WorkerID: t.WorkerID, Trace: t.Trace})
	}
	return out
}
