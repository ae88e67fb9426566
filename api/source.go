package api

// Source types as SourceInfo.Type and SourceDescription.Type spell them.
const (
	SourceStream = "STREAM"
	SourceTable  = "TABLE"
)

// SourceInfo is one row of SHOW STREAMS / SHOW TABLES.
type SourceInfo struct {
	Type        string `json:"type"` // STREAM or TABLE
	Name        string `json:"name"`
	Topic       string `json:"topic"`
	KeyFormat   string `json:"keyFormat"`
	ValueFormat string `json:"valueFormat"`
	IsWindowed  bool   `json:"isWindowed"`
	// IsGlobal is set for a GLOBAL table (sqlstream's; absent otherwise,
	// so the entity is ksqlDB's for every other source).
	IsGlobal bool `json:"isGlobal,omitempty"`
}

// StreamsList ("streams") is the result of SHOW STREAMS.
type StreamsList struct {
	StatementText string       `json:"statementText"`
	Streams       []SourceInfo `json:"streams"`
	Warnings      []Warning    `json:"warnings"`
}

// EntityType returns "streams".
func (e StreamsList) EntityType() string { return TypeStreams }

// EntityWarnings returns the entity's warnings.
func (e StreamsList) EntityWarnings() []Warning { return e.Warnings }

// MarshalJSON encodes the entity with its "@type" first.
func (e StreamsList) MarshalJSON() ([]byte, error) {
	type plain StreamsList
	p := plain(e)
	p.Streams, p.Warnings = orEmpty(p.Streams), orEmpty(p.Warnings)
	return marshalTyped(e.EntityType(), p)
}

// TablesList ("tables") is the result of SHOW TABLES.
type TablesList struct {
	StatementText string       `json:"statementText"`
	Tables        []SourceInfo `json:"tables"`
	Warnings      []Warning    `json:"warnings"`
}

// EntityType returns "tables".
func (e TablesList) EntityType() string { return TypeTables }

// EntityWarnings returns the entity's warnings.
func (e TablesList) EntityWarnings() []Warning { return e.Warnings }

// MarshalJSON encodes the entity with its "@type" first.
func (e TablesList) MarshalJSON() ([]byte, error) {
	type plain TablesList
	p := plain(e)
	p.Tables, p.Warnings = orEmpty(p.Tables), orEmpty(p.Warnings)
	return marshalTyped(e.EntityType(), p)
}

// SourceDescriptionEntity ("sourceDescription") is the result of
// DESCRIBE [EXTENDED] <source>.
type SourceDescriptionEntity struct {
	StatementText     string            `json:"statementText"`
	SourceDescription SourceDescription `json:"sourceDescription"`
	Warnings          []Warning         `json:"warnings"`
}

// EntityType returns "sourceDescription".
func (e SourceDescriptionEntity) EntityType() string { return TypeSourceDescription }

// EntityWarnings returns the entity's warnings.
func (e SourceDescriptionEntity) EntityWarnings() []Warning { return e.Warnings }

// MarshalJSON encodes the entity with its "@type" first.
func (e SourceDescriptionEntity) MarshalJSON() ([]byte, error) {
	type plain SourceDescriptionEntity
	p := plain(e)
	p.Warnings = orEmpty(p.Warnings)
	return marshalTyped(e.EntityType(), p)
}

// SourceDescriptionList ("source_descriptions") is the result of SHOW
// STREAMS/TABLES EXTENDED and DESCRIBE STREAMS/TABLES.
type SourceDescriptionList struct {
	StatementText      string              `json:"statementText"`
	SourceDescriptions []SourceDescription `json:"sourceDescriptions"`
	Warnings           []Warning           `json:"warnings"`
}

// EntityType returns "source_descriptions".
func (e SourceDescriptionList) EntityType() string { return TypeSourceDescriptions }

// EntityWarnings returns the entity's warnings.
func (e SourceDescriptionList) EntityWarnings() []Warning { return e.Warnings }

// MarshalJSON encodes the entity with its "@type" first.
func (e SourceDescriptionList) MarshalJSON() ([]byte, error) {
	type plain SourceDescriptionList
	p := plain(e)
	p.SourceDescriptions, p.Warnings = orEmpty(p.SourceDescriptions), orEmpty(p.Warnings)
	return marshalTyped(e.EntityType(), p)
}

// SourceDescription describes one stream or table. A non-extended
// DESCRIBE leaves the statistics empty and partitions/replication 0.
type SourceDescription struct {
	Name string `json:"name"`
	// WindowType is TUMBLING, HOPPING or SESSION; nil (null) when the
	// source is not windowed.
	WindowType   *string        `json:"windowType"`
	ReadQueries  []RunningQuery `json:"readQueries"`
	WriteQueries []RunningQuery `json:"writeQueries"`
	Fields       []FieldInfo    `json:"fields"`
	Type         string         `json:"type"` // STREAM or TABLE
	// IsGlobal is set for a GLOBAL table (absent otherwise, as in SourceInfo).
	IsGlobal  bool   `json:"isGlobal,omitempty"`
	Timestamp string `json:"timestamp"` // TIMESTAMP column name or ""
	// Statistics and ErrorStats are free text (ksqlDB prefixes a
	// deprecation note when non-empty; the engine supplies the full text).
	Statistics    string          `json:"statistics"`
	ErrorStats    string          `json:"errorStats"`
	StatisticsMap map[string]Stat `json:"statisticsMap,omitempty"`
	ErrorStatsMap map[string]Stat `json:"errorStatsMap,omitempty"`
	Extended      bool            `json:"extended"`
	KeyFormat     string          `json:"keyFormat"`
	ValueFormat   string          `json:"valueFormat"`
	Topic         string          `json:"topic"`
	Partitions    int             `json:"partitions"`
	Replication   int             `json:"replication"`
	Statement     string          `json:"statement"` // the CREATE statement
	// QueryOffsetSummaries are the consumer offsets of the queries reading
	// the source (DESCRIBE EXTENDED).
	QueryOffsetSummaries []QueryOffsetSummary `json:"queryOffsetSummaries"`
	SourceConstraints    []string             `json:"sourceConstraints"`
	// ClusterStatistics and ClusterErrorStats are per-host statistics of
	// a multi-node cluster; a single node leaves them empty ([]).
	ClusterStatistics []HostStats `json:"clusterStatistics"`
	ClusterErrorStats []HostStats `json:"clusterErrorStats"`
}

// MarshalJSON encodes the description with [] for empty lists.
func (d SourceDescription) MarshalJSON() ([]byte, error) {
	type plain SourceDescription
	p := plain(d)
	p.ReadQueries, p.WriteQueries = orEmpty(p.ReadQueries), orEmpty(p.WriteQueries)
	p.Fields = orEmpty(p.Fields)
	p.QueryOffsetSummaries = orEmpty(p.QueryOffsetSummaries)
	p.SourceConstraints = orEmpty(p.SourceConstraints)
	p.ClusterStatistics, p.ClusterErrorStats = orEmpty(p.ClusterStatistics), orEmpty(p.ClusterErrorStats)
	return Marshal(p)
}

// Stat is one metric of a source (messages-per-sec, total-messages, …).
type Stat struct {
	Name      string  `json:"name"`
	Value     float64 `json:"value"`
	Timestamp int64   `json:"timestamp"`
}

// HostStats is one host's statistics in a multi-node cluster.
type HostStats struct {
	Host  string          `json:"host"`
	Stats map[string]Stat `json:"stats"`
}

// QueryOffsetSummary is the consumer position of one query's consumer
// group over the source's topics.
type QueryOffsetSummary struct {
	GroupID        string                    `json:"groupId"`
	TopicSummaries []QueryTopicOffsetSummary `json:"topicSummaries"`
}

// QueryTopicOffsetSummary is a consumer group's position on one topic.
type QueryTopicOffsetSummary struct {
	KafkaTopic string           `json:"kafkaTopic"`
	Offsets    []ConsumerOffset `json:"offsets"`
}

// ConsumerOffset is a consumer group's position on one partition.
type ConsumerOffset struct {
	Partition      int32 `json:"partition"`
	LogStartOffset int64 `json:"logStartOffset"`
	LogEndOffset   int64 `json:"logEndOffset"`
	ConsumerOffset int64 `json:"consumerOffset"`
}
