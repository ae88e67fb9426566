package api

// The "@type"s of the connector entities (ksqlDB's KsqlEntity subtypes).
const (
	TypeConnectorInfo        = "connector_info"
	TypeDropConnector        = "drop_connector"
	TypeConnectorList        = "connector_list"
	TypeConnectorPluginsList = "connector_plugins_list"
	TypeConnectorDescription = "connector_description"
)

// ConnectorInfo is Kafka Connect's connector as Connect's REST API gives
// it (ksqlDB embeds it as it is): config, tasks and type ("source",
// "sink").
type ConnectorInfo struct {
	Name   string            `json:"name"`
	Config map[string]string `json:"config"`
	Tasks  []ConnectorTaskID `json:"tasks"`
	Type   string            `json:"type"`
}

// ConnectorTaskID names one task of a connector.
type ConnectorTaskID struct {
	Connector string `json:"connector"`
	Task      int    `json:"task"`
}

// ConnectorStateInfo is Connect's connector status.
type ConnectorStateInfo struct {
	Name      string               `json:"name"`
	Connector ConnectorState       `json:"connector"`
	Tasks     []ConnectorTaskState `json:"tasks"`
	Type      string               `json:"type"`
}

// ConnectorState is a connector's state on its worker.
type ConnectorState struct {
	State    string `json:"state"`
	WorkerID string `json:"worker_id"`
	Trace    string `json:"trace,omitempty"`
}

// ConnectorTaskState is one task's state.
type ConnectorTaskState struct {
	ID       int    `json:"id"`
	State    string `json:"state"`
	WorkerID string `json:"worker_id"`
	Trace    string `json:"trace,omitempty"`
}

// CreateConnectorEntity ("connector_info") is the answer of CREATE
// SOURCE|SINK CONNECTOR: the connector Connect created.
type CreateConnectorEntity struct {
	StatementText string        `json:"statementText"`
	Info          ConnectorInfo `json:"info"`
	Warnings      []Warning     `json:"warnings"`
}

// EntityType returns "connector_info".
func (e CreateConnectorEntity) EntityType() string { return TypeConnectorInfo }

// EntityWarnings returns the entity's warnings.
func (e CreateConnectorEntity) EntityWarnings() []Warning { return e.Warnings }

// MarshalJSON encodes the entity with its "@type" first.
func (e CreateConnectorEntity) MarshalJSON() ([]byte, error) {
	type plain CreateConnectorEntity
	p := plain(e)
	p.Warnings = orEmpty(p.Warnings)
	return marshalTyped(e.EntityType(), p)
}

// DropConnectorEntity ("drop_connector") is the answer of DROP CONNECTOR.
type DropConnectorEntity struct {
	StatementText string    `json:"statementText"`
	ConnectorName string    `json:"connectorName"`
	Warnings      []Warning `json:"warnings"`
}

// EntityType returns "drop_connector".
func (e DropConnectorEntity) EntityType() string { return TypeDropConnector }

// EntityWarnings returns the entity's warnings.
func (e DropConnectorEntity) EntityWarnings() []Warning { return e.Warnings }

// MarshalJSON encodes the entity with its "@type" first.
func (e DropConnectorEntity) MarshalJSON() ([]byte, error) {
	type plain DropConnectorEntity
	p := plain(e)
	p.Warnings = orEmpty(p.Warnings)
	return marshalTyped(e.EntityType(), p)
}

// SimpleConnectorInfo is one row of SHOW CONNECTORS: type, class and a
// state summary ("RUNNING (1/1 tasks RUNNING)"); null where Connect
// could not describe the connector.
type SimpleConnectorInfo struct {
	Name      string  `json:"name"`
	Type      *string `json:"type"`
	ClassName *string `json:"className"`
	State     *string `json:"state"`
}

// ConnectorList ("connector_list") is the answer of SHOW CONNECTORS.
type ConnectorList struct {
	StatementText string                `json:"statementText"`
	Warnings      []Warning             `json:"warnings"`
	Connectors    []SimpleConnectorInfo `json:"connectors"`
}

// EntityType returns "connector_list".
func (e ConnectorList) EntityType() string { return TypeConnectorList }

// EntityWarnings returns the entity's warnings.
func (e ConnectorList) EntityWarnings() []Warning { return e.Warnings }

// MarshalJSON encodes the entity with its "@type" first.
func (e ConnectorList) MarshalJSON() ([]byte, error) {
	type plain ConnectorList
	p := plain(e)
	p.Warnings, p.Connectors = orEmpty(p.Warnings), orEmpty(p.Connectors)
	return marshalTyped(e.EntityType(), p)
}

// ConnectorPluginInfo is one plugin of SHOW CONNECTOR PLUGINS.
type ConnectorPluginInfo struct {
	ClassName string `json:"className"`
	Type      string `json:"type"`
	Version   string `json:"version"`
}

// ConnectorPluginsList ("connector_plugins_list") is the answer of SHOW
// CONNECTOR PLUGINS (ksqlDB spells the field connectorsPlugins).
type ConnectorPluginsList struct {
	StatementText string                `json:"statementText"`
	Warnings      []Warning             `json:"warnings"`
	Plugins       []ConnectorPluginInfo `json:"connectorsPlugins"`
}

// EntityType returns "connector_plugins_list".
func (e ConnectorPluginsList) EntityType() string { return TypeConnectorPluginsList }

// EntityWarnings returns the entity's warnings.
func (e ConnectorPluginsList) EntityWarnings() []Warning { return e.Warnings }

// MarshalJSON encodes the entity with its "@type" first.
func (e ConnectorPluginsList) MarshalJSON() ([]byte, error) {
	type plain ConnectorPluginsList
	p := plain(e)
	p.Warnings, p.Plugins = orEmpty(p.Warnings), orEmpty(p.Plugins)
	return marshalTyped(e.EntityType(), p)
}

// ConnectorDescription ("connector_description") is the answer of
// DESCRIBE CONNECTOR: its class, status, the topics it uses and the
// streams and tables over them.
type ConnectorDescription struct {
	StatementText  string              `json:"statementText"`
	ConnectorClass string              `json:"connectorClass"`
	Status         ConnectorStateInfo  `json:"status"`
	Sources        []SourceDescription `json:"sources"`
	Topics         []string            `json:"topics"`
	Warnings       []Warning           `json:"warnings"`
}

// EntityType returns "connector_description".
func (e ConnectorDescription) EntityType() string { return TypeConnectorDescription }

// EntityWarnings returns the entity's warnings.
func (e ConnectorDescription) EntityWarnings() []Warning { return e.Warnings }

// MarshalJSON encodes the entity with its "@type" first.
func (e ConnectorDescription) MarshalJSON() ([]byte, error) {
	type plain ConnectorDescription
	p := plain(e)
	p.Warnings, p.Sources, p.Topics = orEmpty(p.Warnings), orEmpty(p.Sources), orEmpty(p.Topics)
	p.Status.Tasks = orEmpty(p.Status.Tasks)
	return marshalTyped(e.EntityType(), p)
}
