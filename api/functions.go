package api

// Function types of SimpleFunctionInfo and FunctionDescriptionList.
const (
	FunctionScalar    = "SCALAR"
	FunctionAggregate = "AGGREGATE"
	FunctionTable     = "TABLE"
)

// FunctionNameList ("function_names") is the result of SHOW FUNCTIONS.
type FunctionNameList struct {
	StatementText string               `json:"statementText"`
	Functions     []SimpleFunctionInfo `json:"functions"`
	Warnings      []Warning            `json:"warnings"`
}

// SimpleFunctionInfo is one function of SHOW FUNCTIONS.
type SimpleFunctionInfo struct {
	Name     string `json:"name"`
	Type     string `json:"type"`     // SCALAR, AGGREGATE or TABLE
	Category string `json:"category"` // e.g. "STRING", "MATHEMATICAL"
}

// EntityType returns "function_names".
func (e FunctionNameList) EntityType() string { return TypeFunctionNames }

// EntityWarnings returns the entity's warnings.
func (e FunctionNameList) EntityWarnings() []Warning { return e.Warnings }

// MarshalJSON encodes the entity with its "@type" first.
func (e FunctionNameList) MarshalJSON() ([]byte, error) {
	type plain FunctionNameList
	p := plain(e)
	p.Functions, p.Warnings = orEmpty(p.Functions), orEmpty(p.Warnings)
	return marshalTyped(e.EntityType(), p)
}

// FunctionDescriptionList ("describe_function") is the result of DESCRIBE
// FUNCTION.
type FunctionDescriptionList struct {
	StatementText string         `json:"statementText"`
	Name          string         `json:"name"`
	Description   string         `json:"description"`
	Author        string         `json:"author"`
	Version       string         `json:"version"`
	Path          string         `json:"path"` // "internal" for built-ins
	Functions     []FunctionInfo `json:"functions"`
	Type          string         `json:"type"` // SCALAR, AGGREGATE or TABLE
	Warnings      []Warning      `json:"warnings"`
}

// FunctionInfo is one overload of a function.
type FunctionInfo struct {
	Arguments     []ArgumentInfo `json:"arguments"`
	ReturnType    string         `json:"returnType"`
	Description   string         `json:"description"`
	ArgumentTypes []string       `json:"argumentTypes"`
}

// ArgumentInfo is one parameter of an overload.
type ArgumentInfo struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description"`
	IsVariadic  bool   `json:"isVariadic"`
}

// EntityType returns "describe_function".
func (e FunctionDescriptionList) EntityType() string { return TypeDescribeFunction }

// EntityWarnings returns the entity's warnings.
func (e FunctionDescriptionList) EntityWarnings() []Warning { return e.Warnings }

// MarshalJSON encodes the entity with its "@type" first.
func (e FunctionDescriptionList) MarshalJSON() ([]byte, error) {
	type plain FunctionDescriptionList
	p := plain(e)
	p.Functions, p.Warnings = orEmpty(p.Functions), orEmpty(p.Warnings)
	return marshalTyped(e.EntityType(), p)
}

// MarshalJSON encodes the overload with [] for empty lists.
func (f FunctionInfo) MarshalJSON() ([]byte, error) {
	type plain FunctionInfo
	p := plain(f)
	p.Arguments, p.ArgumentTypes = orEmpty(p.Arguments), orEmpty(p.ArgumentTypes)
	return Marshal(p)
}
