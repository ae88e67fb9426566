package repl

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sqlstream/sqlstream/api"
)

// connectorTable builds the CLI table of a connector entity, as ksqlDB's
// ConnectorInfo, DropConnector, ConnectorList and ConnectorPluginsList
// table builders do; nil for any other entity.
func connectorTable(e api.Entity) *table {
	switch e := e.(type) {
	case *api.CreateConnectorEntity:
		return messageTable("Created connector " + e.Info.Name)
	case *api.DropConnectorEntity:
		return messageTable(`Dropped connector "` + e.ConnectorName + `"`)
	case *api.ConnectorList:
		t := &table{headers: []string{"Connector Name", "Type", "Class", "Status"}}
		for _, c := range e.Connectors {
			t.add(c.Name, strings.ToUpper(orText(c.Type, "unknown")), orText(c.ClassName, ""), orText(c.State, ""))
		}
		return t
	case *api.ConnectorPluginsList:
		t := &table{headers: []string{"Class", "Type", "Version"}}
		for _, p := range e.Plugins {
			t.add(p.ClassName, strings.ToUpper(or(p.Type, "unknown")), p.Version)
		}
		return t
	}
	return nil
}

func orText(s *string, def string) string {
	if s == nil {
		return def
	}
	return *s
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// printConnectorDescription prints DESCRIBE CONNECTOR as ksqlDB's CLI:
// name, class, type, state and worker, then the tasks, the streams and
// tables over its topics, and the topics.
func (c *console) printConnectorDescription(d *api.ConnectorDescription) {
	st := d.Status
	for _, kv := range [][2]string{{"Name", st.Name}, {"Class", d.ConnectorClass}, {"Type", st.Type},
		{"State", st.Connector.State}, {"WorkerId", st.Connector.WorkerID}} {
		c.println(fmt.Sprintf("%-20s : %s", kv[0], kv[1]))
	}
	if st.Connector.Trace != "" {
		c.println(fmt.Sprintf("%-20s : %s", "Trace", st.Connector.Trace))
	}
	if len(st.Tasks) > 0 {
		c.println()
		t := &table{headers: []string{"Task ID", "State", "Error Trace"}}
		for _, task := range st.Tasks {
			t.add(strconv.Itoa(task.ID), task.State, task.Trace)
		}
		t.print(c)
	}
	if len(d.Sources) > 0 {
		c.println()
		t := &table{headers: []string{"KSQL Source Name", "Kafka Topic", "Type"}}
		for _, s := range d.Sources {
			t.add(s.Name, s.Topic, s.Type)
		}
		t.print(c)
	}
	if len(d.Topics) > 0 {
		c.println()
		t := &table{headers: []string{"Related Topics"}}
		for _, topic := range d.Topics {
			t.add(topic)
		}
		t.print(c)
	}
}
