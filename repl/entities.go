package repl

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sqlstream/sqlstream/api"
)

// printEntities prints a /ksql result like the CLI's printKsqlEntityList:
// a blank line before each entity, its statement text when there are
// several, the entity, then its warnings.
func (c *console) printEntities(entities []api.Entity) {
	if c.jsonOutput {
		c.printJSON(entities)
		return
	}
	for _, e := range entities {
		c.println()
		if len(entities) > 1 {
			c.println(statementText(e))
		}
		c.printEntity(e)
		for _, w := range e.EntityWarnings() {
			c.println("WARNING: " + w.Message)
		}
	}
}

func (c *console) printEntity(e api.Entity) {
	switch e := e.(type) {
	case *api.SourceDescriptionEntity:
		c.printSourceDescription(e.SourceDescription)
	case *api.SourceDescriptionList:
		for _, d := range e.SourceDescriptions {
			c.printSourceDescription(d)
			c.println()
		}
	case *api.QueryDescriptionEntity:
		c.printQueryDescription(e.QueryDescription)
	case *api.QueryDescriptionList:
		for _, d := range e.QueryDescriptions {
			c.printQueryDescription(d)
			c.println()
		}
	case *api.FunctionDescriptionList:
		c.printFunctionDescription(e)
	case *api.RawEntity:
		c.println(string(e.JSON))
	case *api.AssertSchemaEntity:
		c.println(e.Text())
	case *api.AssertTopicEntity:
		c.println(e.Text())
	case *api.ConnectorDescription:
		c.printConnectorDescription(e)
	default:
		t := entityTable(e)
		t.print(c)
	}
}

// entityTable builds the table of a list-like entity.
func entityTable(e api.Entity) *table {
	switch e := e.(type) {
	case *api.CommandStatusEntity:
		return messageTable(firstLine(e.CommandStatus.Message))
	case *api.TerminateQueryEntity:
		return messageTable(fmt.Sprintf("Terminated query %q", e.QueryID))
	case *api.WarningEntity:
		return messageTable(e.Message)
	case *api.StreamsList:
		return sourcesTable("Stream Name", e.Streams)
	case *api.TablesList:
		return sourcesTable("Table Name", e.Tables)
	case *api.QueriesList:
		return queriesTable(e.Queries)
	case *api.PropertiesList:
		return propertiesTable(e)
	case *api.KafkaTopicsList:
		return topicsTable(e.Topics)
	case *api.KafkaTopicsListExtended:
		return topicsExtendedTable(e.Topics)
	case *api.FunctionNameList:
		return functionsTable(e.Functions)
	case *api.TypeList:
		return typesTable(e.Types)
	case *api.VariablesList:
		return variablesTable(e.Variables)
	}
	if t := connectorTable(e); t != nil {
		return t
	}
	return messageTable(fmt.Sprintf("(no rendering for entity %q)", e.EntityType()))
}

func messageTable(msg string) *table {
	t := &table{headers: []string{"Message"}}
	t.add(msg)
	return t
}

func sourcesTable(nameHeading string, sources []api.SourceInfo) *table {
	sorted := append([]api.SourceInfo(nil), sources...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	t := &table{headers: []string{nameHeading, "Kafka Topic", "Key Format", "Value Format", "Windowed"}}
	global := slices.ContainsFunc(sorted, func(s api.SourceInfo) bool { return s.IsGlobal })
	if global {
		t.headers = append(t.headers, "Global") // only when a GLOBAL table is listed
	}
	for _, s := range sorted {
		cells := []string{s.Name, s.Topic, s.KeyFormat, s.ValueFormat, strconv.FormatBool(s.IsWindowed)}
		if global {
			cells = append(cells, strconv.FormatBool(s.IsGlobal))
		}
		t.add(cells...)
	}
	return t
}

func queriesTable(queries []api.RunningQuery) *table {
	t := &table{
		headers: []string{"Query ID", "Query Type", "Status", "Sink Name", "Sink Kafka Topic", "Query String"},
		footer:  []string{"For detailed information on a Query run: EXPLAIN <Query ID>;"},
	}
	for _, q := range queries {
		t.add(q.ID, q.QueryType, queryStatus(q), strings.Join(q.Sinks, ","),
			strings.Join(q.SinkKafkaTopics, ","), singleLine(q.QueryString))
	}
	return t
}

// queryStatus renders statusCount as "RUNNING:1,ERROR:2" (ksqlDB's state
// order), or the aggregate state when there are no counts.
func queryStatus(q api.RunningQuery) string {
	b, err := q.StatusCount.MarshalJSON()
	if err != nil || len(q.StatusCount) == 0 {
		return orNA(q.State)
	}
	s := strings.NewReplacer(`"`, "", "{", "", "}", "").Replace(string(b))
	return s
}

func propertiesTable(p *api.PropertiesList) *table {
	overridden := setOf(p.OverwrittenProperties)
	defaults := setOf(p.DefaultProperties)
	props := append([]api.Property(nil), p.Properties...)
	sort.SliceStable(props, func(i, j int) bool { return props[i].Name < props[j].Name })
	t := &table{headers: []string{"Property", "Scope", "Default override", "Effective Value"}}
	for _, pr := range props {
		override := "SERVER"
		switch {
		case overridden[pr.Name]:
			override = "SESSION"
		case defaults[pr.Name]:
			override = ""
		}
		value := "NULL" // ksqlDB's CLI for an unset property
		if pr.Value != nil {
			value = *pr.Value
		}
		t.add(pr.Name, pr.Scope, override, value)
	}
	return t
}

func topicsTable(topics []api.KafkaTopicInfo) *table {
	t := &table{headers: []string{"Kafka Topic", "Partitions", "Partition Replicas"}}
	for _, tp := range topics {
		t.add(tp.Name, strconv.Itoa(len(tp.ReplicaInfo)), replicaInfo(tp.ReplicaInfo))
	}
	return t
}

func topicsExtendedTable(topics []api.KafkaTopicInfoExtended) *table {
	t := &table{headers: []string{"Kafka Topic", "Partitions", "Partition Replicas", "Consumers", "ConsumerGroups"}}
	for _, tp := range topics {
		t.add(tp.Name, strconv.Itoa(len(tp.ReplicaInfo)), replicaInfo(tp.ReplicaInfo),
			strconv.Itoa(tp.ConsumerCount), strconv.Itoa(tp.ConsumerGroupCount))
	}
	return t
}

// replicaInfo prints one number when all partitions have the same replica
// count, else the list.
func replicaInfo(replicas []int) string {
	if len(replicas) == 0 {
		return "0"
	}
	parts := make([]string, len(replicas))
	same := true
	for i, r := range replicas {
		parts[i] = strconv.Itoa(r)
		same = same && r == replicas[0]
	}
	if same {
		return parts[0]
	}
	return strings.Join(parts, ", ")
}

// functionsTable lists functions grouped by category (a blank row between
// categories), as the CLI does.
func functionsTable(fns []api.SimpleFunctionInfo) *table {
	sorted := append([]api.SimpleFunctionInfo(nil), fns...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].Category != sorted[j].Category {
			return sorted[i].Category < sorted[j].Category
		}
		return sorted[i].Name < sorted[j].Name
	})
	t := &table{
		headers: []string{"Function Name", "Category"},
		footer:  []string{"For detailed information about a function, run: DESCRIBE FUNCTION <Function Name>;"},
	}
	for i, f := range sorted {
		if i > 0 && f.Category != sorted[i-1].Category {
			t.add(" ", " ")
		}
		t.add(f.Name, f.Category)
	}
	return t
}

func typesTable(types map[string]api.SchemaInfo) *table {
	names := make([]string, 0, len(types))
	for n := range types {
		names = append(names, n)
	}
	sort.Strings(names)
	t := &table{headers: []string{"Type Name", "Schema"}}
	for _, n := range names {
		t.add(n, typeString(types[n]))
	}
	return t
}

func variablesTable(vars []api.Variable) *table {
	t := &table{headers: []string{"Variable Name", "Value"}}
	for _, v := range vars {
		t.add(v.Name, v.Value)
	}
	return t
}

// typeString renders a schema as the CLI does: VARCHAR(STRING),
// ARRAY<…>, MAP<STRING, …>, STRUCT<name TYPE, …>, DECIMAL(p, s).
func typeString(s api.SchemaInfo) string {
	switch s.Type {
	case "STRING":
		return "VARCHAR(STRING)"
	case "ARRAY":
		return "ARRAY<" + memberString(s) + ">"
	case "MAP":
		return "MAP<STRING, " + memberString(s) + ">"
	case "STRUCT":
		parts := make([]string, len(s.Fields))
		for i, f := range s.Fields {
			parts[i] = f.Name + " " + typeString(f.Schema)
		}
		return "STRUCT<" + strings.Join(parts, ", ") + ">"
	case "DECIMAL":
		if s.Parameters != nil {
			return fmt.Sprintf("DECIMAL(%d, %d)", s.Parameters.Precision, s.Parameters.Scale)
		}
	}
	return s.Type
}

func memberString(s api.SchemaInfo) string {
	if s.MemberSchema == nil {
		return "?"
	}
	return typeString(*s.MemberSchema)
}

func statementText(e api.Entity) string {
	var v struct {
		StatementText string `json:"statementText"`
	}
	if b, err := e.MarshalJSON(); err == nil {
		_ = json.Unmarshal(b, &v)
	}
	return v.StatementText
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// singleLine is RunningQuery.getQuerySingleLine: line breaks become
// spaces.
func singleLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ").Replace(s)
}

func orNA(s string) string {
	if s == "" {
		return "N/A"
	}
	return s
}

func setOf(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
