package connect

// ConnectorInfo is Connect's connector: its config, tasks and type
// ("source" or "sink"); ksqlDB's connector_info entity embeds it.
type ConnectorInfo struct {
	Name   string            `json:"name"`
	Config map[string]string `json:"config"`
	Tasks  []TaskID          `json:"tasks"`
	Type   string            `json:"type"`
}

// TaskID names one task of a connector.
type TaskID struct {
	Connector string `json:"connector"`
	Task      int    `json:"task"`
}

// StateInfo is Connect's connector status (ConnectorStateInfo).
type StateInfo struct {
	Name      string      `json:"name"`
	Connector State       `json:"connector"`
	Tasks     []TaskState `json:"tasks"`
	Type      string      `json:"type"`
}

// State is the connector's state on its worker.
type State struct {
	State    string `json:"state"`
	WorkerID string `json:"worker_id"`
	Trace    string `json:"trace,omitempty"`
}

// TaskState is one task's state.
type TaskState struct {
	ID       int    `json:"id"`
	State    string `json:"state"`
	WorkerID string `json:"worker_id"`
	Trace    string `json:"trace,omitempty"`
}

// PluginInfo is one connector plugin of GET /connector-plugins.
type PluginInfo struct {
	Class   string `json:"class"`
	Type    string `json:"type"`
	Version string `json:"version"`
}

// ConfigInfos is the answer of a config validation: per config, its
// value and errors.
type ConfigInfos struct {
	Name       string       `json:"name"`
	ErrorCount int          `json:"error_count"`
	Configs    []ConfigInfo `json:"configs"`
}

// ConfigInfo is one config of ConfigInfos.
type ConfigInfo struct {
	Value ConfigValue `json:"value"`
}

// ConfigValue is a config's validated value and its errors.
type ConfigValue struct {
	Name   string   `json:"name"`
	Errors []string `json:"errors"`
}
