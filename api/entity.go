package api

import (
	"encoding/json"
	"fmt"
)

// Entity is one result object of POST /ksql. Each concrete type encodes
// with its "@type" discriminator first (see the Type* constants), then
// statementText, its own fields, and warnings last, like ksqlDB's KsqlEntity.
// Both T and *T implement Entity; DecodeEntities returns pointers.
type Entity interface {
	// EntityType returns the "@type" name, e.g. "currentStatus".
	EntityType() string
	// EntityWarnings returns the entity's warnings (may be empty).
	EntityWarnings() []Warning
	json.Marshaler
}

// The "@type" names of the entities (ksqlDB's KsqlEntity subtypes).
const (
	TypeCurrentStatus       = "currentStatus"
	TypeStreams             = "streams"
	TypeTables              = "tables"
	TypeQueries             = "queries"
	TypeSourceDescription   = "sourceDescription"
	TypeSourceDescriptions  = "source_descriptions"
	TypeQueryDescription    = "queryDescription"
	TypeQueryDescriptions   = "query_descriptions"
	TypeProperties          = "properties"
	TypeKafkaTopics         = "kafka_topics"
	TypeKafkaTopicsExtended = "kafka_topics_extended"
	TypeFunctionNames       = "function_names"
	TypeDescribeFunction    = "describe_function"
	TypeTerminateQuery      = "terminate_query"
	TypeWarning             = "warning_entity"
	TypeTypeList            = "type_list"
	TypeVariables           = "variables"
)

// Warning is one entry of an entity's "warnings" list.
type Warning struct {
	Message string `json:"message"`
}

// RawEntity is an entity whose "@type" this package does not know. It
// keeps the original JSON so a client can still show it.
type RawEntity struct {
	Type string
	JSON json.RawMessage
}

// EntityType returns the "@type" found in the JSON.
func (e RawEntity) EntityType() string { return e.Type }

// EntityWarnings returns nil: the raw entity is not interpreted.
func (e RawEntity) EntityWarnings() []Warning { return nil }

// MarshalJSON returns the original JSON.
func (e RawEntity) MarshalJSON() ([]byte, error) { return e.JSON, nil }

// DecodeEntities decodes a POST /ksql response body (a JSON array of
// entities), choosing each element's Go type by its "@type". Unknown types
// come back as *RawEntity.
func DecodeEntities(data []byte) ([]Entity, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return nil, fmt.Errorf("decoding entity list: %w", err)
	}
	out := make([]Entity, 0, len(raws))
	for i, raw := range raws {
		e, err := DecodeEntity(raw)
		if err != nil {
			return nil, fmt.Errorf("decoding entity %d: %w", i, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// DecodeEntity decodes one entity object by its "@type".
func DecodeEntity(raw []byte) (Entity, error) {
	var tag struct {
		Type string `json:"@type"`
	}
	if err := json.Unmarshal(raw, &tag); err != nil {
		return nil, err
	}
	e := newEntity(tag.Type)
	if e == nil {
		return &RawEntity{Type: tag.Type, JSON: append(json.RawMessage(nil), raw...)}, nil
	}
	if err := json.Unmarshal(raw, e); err != nil {
		return nil, fmt.Errorf("@type %q: %w", tag.Type, err)
	}
	return e, nil
}

// newEntity returns a pointer to a zero entity of the given "@type", or nil.
func newEntity(typeName string) Entity {
	switch typeName {
	case TypeCurrentStatus:
		return &CommandStatusEntity{}
	case TypeStreams:
		return &StreamsList{}
	case TypeTables:
		return &TablesList{}
	case TypeQueries:
		return &QueriesList{}
	case TypeSourceDescription:
		return &SourceDescriptionEntity{}
	case TypeSourceDescriptions:
		return &SourceDescriptionList{}
	case TypeQueryDescription:
		return &QueryDescriptionEntity{}
	case TypeQueryDescriptions:
		return &QueryDescriptionList{}
	case TypeProperties:
		return &PropertiesList{}
	case TypeKafkaTopics:
		return &KafkaTopicsList{}
	case TypeKafkaTopicsExtended:
		return &KafkaTopicsListExtended{}
	case TypeFunctionNames:
		return &FunctionNameList{}
	case TypeDescribeFunction:
		return &FunctionDescriptionList{}
	case TypeTerminateQuery:
		return &TerminateQueryEntity{}
	case TypeWarning:
		return &WarningEntity{}
	case TypeTypeList:
		return &TypeList{}
	case TypeVariables:
		return &VariablesList{}
	case TypeAssertSchema:
		return &AssertSchemaEntity{}
	case TypeAssertTopic:
		return &AssertTopicEntity{}
	case TypeConnectorInfo:
		return &CreateConnectorEntity{}
	case TypeDropConnector:
		return &DropConnectorEntity{}
	case TypeConnectorList:
		return &ConnectorList{}
	case TypeConnectorPluginsList:
		return &ConnectorPluginsList{}
	case TypeConnectorDescription:
		return &ConnectorDescription{}
	}
	return nil
}
