package api

// KafkaTopicsList ("kafka_topics") is the result of SHOW [ALL] TOPICS.
type KafkaTopicsList struct {
	StatementText string           `json:"statementText"`
	Topics        []KafkaTopicInfo `json:"topics"`
	Warnings      []Warning        `json:"warnings"`
}

// KafkaTopicInfo is one topic: its name and the replica count of each
// partition.
type KafkaTopicInfo struct {
	Name        string `json:"name"`
	ReplicaInfo []int  `json:"replicaInfo"`
}

// EntityType returns "kafka_topics".
func (e KafkaTopicsList) EntityType() string { return TypeKafkaTopics }

// EntityWarnings returns the entity's warnings.
func (e KafkaTopicsList) EntityWarnings() []Warning { return e.Warnings }

// MarshalJSON encodes the entity with its "@type" first.
func (e KafkaTopicsList) MarshalJSON() ([]byte, error) {
	type plain KafkaTopicsList
	p := plain(e)
	p.Topics, p.Warnings = orEmpty(p.Topics), orEmpty(p.Warnings)
	return marshalTyped(e.EntityType(), p)
}

// KafkaTopicsListExtended ("kafka_topics_extended") is the result of SHOW
// TOPICS EXTENDED.
type KafkaTopicsListExtended struct {
	StatementText string                   `json:"statementText"`
	Topics        []KafkaTopicInfoExtended `json:"topics"`
	Warnings      []Warning                `json:"warnings"`
}

// KafkaTopicInfoExtended is a topic with its consumers.
type KafkaTopicInfoExtended struct {
	Name               string `json:"name"`
	ReplicaInfo        []int  `json:"replicaInfo"`
	ConsumerCount      int    `json:"consumerCount"`
	ConsumerGroupCount int    `json:"consumerGroupCount"`
}

// EntityType returns "kafka_topics_extended".
func (e KafkaTopicsListExtended) EntityType() string { return TypeKafkaTopicsExtended }

// EntityWarnings returns the entity's warnings.
func (e KafkaTopicsListExtended) EntityWarnings() []Warning { return e.Warnings }

// MarshalJSON encodes the entity with its "@type" first.
func (e KafkaTopicsListExtended) MarshalJSON() ([]byte, error) {
	type plain KafkaTopicsListExtended
	p := plain(e)
	p.Topics, p.Warnings = orEmpty(p.Topics), orEmpty(p.Warnings)
	return marshalTyped(e.EntityType(), p)
}
