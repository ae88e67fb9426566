package api

// Command statuses (ksqlDB's CommandStatus.Status).
const (
	StatusQueued     = "QUEUED"
	StatusParsing    = "PARSING"
	StatusExecuting  = "EXECUTING"
	StatusRunning    = "RUNNING"
	StatusTerminated = "TERMINATED"
	StatusSuccess    = "SUCCESS"
	StatusError      = "ERROR"
)

// CommandStatus is the status of one distributed command. It is also the
// body of GET /status/{type}/{entity}/{action}.
type CommandStatus struct {
	Status  string `json:"status"`
	Message string `json:"message"`
	// QueryID is the persistent query the command started; nil encodes as
	// null, as ksqlDB does for statements that start no query.
	QueryID *string `json:"queryId"`
}

// CommandStatusEntity ("currentStatus") is the result of CREATE, DROP,
// CSAS/CTAS, INSERT INTO … SELECT, TERMINATE, PAUSE/RESUME, CREATE/DROP TYPE
// and ALTER.
type CommandStatusEntity struct {
	StatementText string        `json:"statementText"`
	CommandID     string        `json:"commandId"` // "<type>/<entity>/<action>", e.g. "stream/S/create"
	CommandStatus CommandStatus `json:"commandStatus"`
	// CommandSequenceNumber is the position in the command log, -1 when the
	// command was not enqueued.
	CommandSequenceNumber int64     `json:"commandSequenceNumber"`
	Warnings              []Warning `json:"warnings"`
}

// EntityType returns "currentStatus".
func (e CommandStatusEntity) EntityType() string { return TypeCurrentStatus }

// EntityWarnings returns the entity's warnings.
func (e CommandStatusEntity) EntityWarnings() []Warning { return e.Warnings }

// MarshalJSON encodes the entity with its "@type" first.
func (e CommandStatusEntity) MarshalJSON() ([]byte, error) {
	type plain CommandStatusEntity
	p := plain(e)
	p.Warnings = orEmpty(p.Warnings)
	return marshalTyped(e.EntityType(), p)
}

// CommandStatuses is the body of GET /status: every command id with its
// status.
type CommandStatuses struct {
	CommandStatuses map[string]string `json:"commandStatuses"`
}

// TerminateQueryEntity ("terminate_query") is the result of TERMINATE on a
// transient (push) query.
type TerminateQueryEntity struct {
	StatementText string    `json:"statementText"`
	QueryID       string    `json:"queryId"`
	WasTerminated bool      `json:"wasTerminated"`
	Warnings      []Warning `json:"warnings"`
}

// EntityType returns "terminate_query".
func (e TerminateQueryEntity) EntityType() string { return TypeTerminateQuery }

// EntityWarnings returns the entity's warnings.
func (e TerminateQueryEntity) EntityWarnings() []Warning { return e.Warnings }

// MarshalJSON encodes the entity with its "@type" first.
func (e TerminateQueryEntity) MarshalJSON() ([]byte, error) {
	type plain TerminateQueryEntity
	p := plain(e)
	p.Warnings = orEmpty(p.Warnings)
	return marshalTyped(e.EntityType(), p)
}

// WarningEntity ("warning_entity") carries a message instead of a result,
// e.g. for a DROP … IF EXISTS of a missing source.
type WarningEntity struct {
	StatementText string    `json:"statementText"`
	Message       string    `json:"message"`
	Warnings      []Warning `json:"warnings"`
}

// EntityType returns "warning_entity".
func (e WarningEntity) EntityType() string { return TypeWarning }

// EntityWarnings returns the entity's warnings.
func (e WarningEntity) EntityWarnings() []Warning { return e.Warnings }

// MarshalJSON encodes the entity with its "@type" first.
func (e WarningEntity) MarshalJSON() ([]byte, error) {
	type plain WarningEntity
	p := plain(e)
	p.Warnings = orEmpty(p.Warnings)
	return marshalTyped(e.EntityType(), p)
}
