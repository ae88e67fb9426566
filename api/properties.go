package api

// PropertiesList ("properties") is the result of SHOW PROPERTIES.
type PropertiesList struct {
	StatementText string     `json:"statementText"`
	Properties    []Property `json:"properties"`
	// OverwrittenProperties names the properties the request overrode.
	OverwrittenProperties []string `json:"overwrittenProperties"`
	// DefaultProperties names the properties still at their default.
	DefaultProperties []string  `json:"defaultProperties"`
	Warnings          []Warning `json:"warnings"`
}

// Property is one property of SHOW PROPERTIES: every property the server
// knows is listed, an unset one with a null value (ksqlDB's
// PropertiesList).
type Property struct {
	Name     string  `json:"name"`
	Scope    string  `json:"scope"` // KSQL, STREAMS, ADMIN, PRODUCER, CONSUMER
	Value    *string `json:"value"` // null when the property is unset
	Editable bool    `json:"editable"`
	Level    string  `json:"level"` // SERVER or QUERY
}

// EntityType returns "properties".
func (e PropertiesList) EntityType() string { return TypeProperties }

// EntityWarnings returns the entity's warnings.
func (e PropertiesList) EntityWarnings() []Warning { return e.Warnings }

// MarshalJSON encodes the entity with its "@type" first.
func (e PropertiesList) MarshalJSON() ([]byte, error) {
	type plain PropertiesList
	p := plain(e)
	p.Properties, p.Warnings = orEmpty(p.Properties), orEmpty(p.Warnings)
	p.OverwrittenProperties = orEmpty(p.OverwrittenProperties)
	p.DefaultProperties = orEmpty(p.DefaultProperties)
	return marshalTyped(e.EntityType(), p)
}

// VariablesList ("variables") is the result of SHOW VARIABLES.
type VariablesList struct {
	StatementText string     `json:"statementText"`
	Variables     []Variable `json:"variables"`
	Warnings      []Warning  `json:"warnings"`
}

// Variable is one session variable.
type Variable struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// EntityType returns "variables".
func (e VariablesList) EntityType() string { return TypeVariables }

// EntityWarnings returns the entity's warnings.
func (e VariablesList) EntityWarnings() []Warning { return e.Warnings }

// MarshalJSON encodes the entity with its "@type" first.
func (e VariablesList) MarshalJSON() ([]byte, error) {
	type plain VariablesList
	p := plain(e)
	p.Variables, p.Warnings = orEmpty(p.Variables), orEmpty(p.Warnings)
	return marshalTyped(e.EntityType(), p)
}

// TypeList ("type_list") is the result of SHOW TYPES: custom type names
// with their definitions.
type TypeList struct {
	StatementText string                `json:"statementText"`
	Types         map[string]SchemaInfo `json:"types"`
	Warnings      []Warning             `json:"warnings"`
}

// EntityType returns "type_list".
func (e TypeList) EntityType() string { return TypeTypeList }

// EntityWarnings returns the entity's warnings.
func (e TypeList) EntityWarnings() []Warning { return e.Warnings }

// MarshalJSON encodes the entity with its "@type" first.
func (e TypeList) MarshalJSON() ([]byte, error) {
	type plain TypeList
	p := plain(e)
	if p.Types == nil {
		p.Types = map[string]SchemaInfo{}
	}
	p.Warnings = orEmpty(p.Warnings)
	return marshalTyped(e.EntityType(), p)
}
