package repl

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/sqlstream/sqlstream/api"
)

// printSourceDescription is the CLI's DESCRIBE layout: "Name : X", the
// field table, and for EXTENDED the topic, queries and statistics.
func (c *console) printSourceDescription(d api.SourceDescription) {
	isTable := strings.EqualFold(d.Type, api.SourceTable)
	c.kv("Name", d.Name)
	if d.IsGlobal {
		c.kv("Global", "true (every query joining it reads the whole topic)")
	}
	if !d.Extended {
		c.printSchema(d.WindowType, d.Fields, isTable)
		c.println("For runtime statistics and query details run: DESCRIBE <Stream,Table> EXTENDED;")
		return
	}
	c.kv("Type", d.Type)
	c.printTopicInfo(d)
	c.kv("Statement", d.Statement)
	c.println()
	c.printSchema(d.WindowType, d.Fields, isTable)
	c.printSourceConstraints(d.SourceConstraints)
	c.printQueries(d.ReadQueries, d.Type, "read")
	c.printQueries(d.WriteQueries, d.Type, "write")
	c.printf("\n%-20s\n%s\n", "Local runtime statistics", "------------------------")
	c.println(d.Statistics)
	c.println(d.ErrorStats)
	c.printf("(%s)\n", "Statistics of the local KSQL server interaction with the Kafka topic "+d.Topic)
	c.printOffsetSummaries(d.QueryOffsetSummaries)
}

func (c *console) printTopicInfo(d api.SourceDescription) {
	ts := d.Timestamp
	if ts == "" {
		ts = "Not set - using <ROWTIME>"
	}
	c.kv("Timestamp field", ts)
	c.kv("Key format", d.KeyFormat)
	c.kv("Value format", d.ValueFormat)
	if d.Topic == "" {
		return
	}
	topic := d.Topic
	if d.Partitions != 0 {
		topic += fmt.Sprintf(" (partitions: %d, replication: %d)", d.Partitions, d.Replication)
	}
	c.kv("Kafka topic", topic)
}

// printSchema prints the Field | Type table.
func (c *console) printSchema(windowType *string, fields []api.FieldInfo, isTable bool) {
	if len(fields) == 0 {
		return
	}
	t := &table{headers: []string{"Field", "Type"}}
	for _, f := range fields {
		t.add(f.Name, fieldType(f, windowType, isTable))
	}
	t.print(c)
}

// fieldType renders a column type with its (primary key) / (key) /
// (headers) marker.
func fieldType(f api.FieldInfo, windowType *string, isTable bool) string {
	ts := typeString(f.Schema)
	switch f.Type {
	case api.FieldHeader:
		marker := "(headers)"
		if f.HeaderKey != "" {
			marker = "(header('" + f.HeaderKey + "'))"
		}
		return fmt.Sprintf("%-16s %s", ts, marker)
	case api.FieldKey:
		marker := "(key)"
		if isTable {
			marker = "(primary key)"
		}
		if windowType != nil {
			marker += " (Window type: " + *windowType + ")"
		}
		return fmt.Sprintf("%-16s %s", ts, marker)
	}
	return ts
}

func (c *console) printSourceConstraints(constraints []string) {
	if len(constraints) == 0 {
		return
	}
	c.printf("\n%-20s\n%-20s\n", "Sources that have a DROP constraint on this source",
		"--------------------------------------------------")
	for _, s := range constraints {
		c.println(s)
	}
}

func (c *console) printQueries(queries []api.RunningQuery, sourceType, operation string) {
	if len(queries) == 0 {
		return
	}
	c.printf("\n%-20s\n%-20s\n", "Queries that "+operation+" from this "+sourceType,
		"-----------------------------------")
	for _, q := range queries {
		c.printf("%s (%s) : %s\n", q.ID, orNA(q.State), singleLine(q.QueryString))
	}
	c.println("\nFor query topology and execution plan please run: EXPLAIN <QueryId>")
}

func (c *console) printOffsetSummaries(summaries []api.QueryOffsetSummary) {
	if len(summaries) == 0 {
		return
	}
	c.println()
	c.println("Consumer Groups summary:")
	for _, s := range summaries {
		c.println()
		c.kv("Consumer Group", s.GroupID)
		if len(s.TopicSummaries) == 0 {
			c.println("<no offsets committed by this group yet>")
		}
		for _, ts := range s.TopicSummaries {
			c.printTopicOffsets(ts)
		}
	}
}

func (c *console) printTopicOffsets(ts api.QueryTopicOffsetSummary) {
	c.println()
	c.kv("Kafka topic", ts.KafkaTopic)
	var maxLag int64
	t := &table{headers: []string{"Partition", "Start Offset", "End Offset", "Offset", "Lag"}}
	for _, o := range ts.Offsets {
		lag := o.LogEndOffset - o.ConsumerOffset
		maxLag = max(maxLag, lag)
		t.add(fmt.Sprint(o.Partition), fmt.Sprint(o.LogStartOffset), fmt.Sprint(o.LogEndOffset),
			fmt.Sprint(o.ConsumerOffset), fmt.Sprint(lag))
	}
	c.kv("Max lag", maxLag)
	c.println()
	t.print(c)
}

// printQueryDescription is the CLI's EXPLAIN layout.
func (c *console) printQueryDescription(q api.QueryDescription) {
	c.kv("ID", q.ID)
	c.kv("Query Type", q.QueryType)
	if q.StatementText != "" {
		c.kv("SQL", q.StatementText)
	}
	if len(q.KsqlHostQueryStatus) > 0 {
		c.kv("Host Query Status", javaMap(q.KsqlHostQueryStatus))
	}
	c.println()
	c.printSchema(q.WindowType, q.Fields, false)
	c.printNames("Sources that this query reads from: ", q.Sources,
		"For source description please run: DESCRIBE [EXTENDED] <SourceId>")
	c.printNames("Sinks that this query writes to: ", q.Sinks,
		"For sink description please run: DESCRIBE [EXTENDED] <SinkId>")
	c.printSection("Upgrade", "-------", strings.TrimRight(q.Upgrade, "\n"))
	c.printSection("Execution plan", "--------------", q.ExecutionPlan)
	c.printSection("Processing topology", "-------------------", q.Topology)
	c.printOverriddenProperties(q.OverriddenProperties)
	c.printQueryErrors(q.QueryErrors)
}

func (c *console) printNames(title string, names []string, footer string) {
	if len(names) == 0 {
		return
	}
	c.printf("\n%-20s\n%-20s\n", title, "-----------------------------------")
	for _, n := range names {
		c.println(n)
	}
	c.println("\n" + footer)
}

func (c *console) printSection(title, underline, text string) {
	if text != "" {
		c.printf("\n%-20s\n%-20s\n%s\n", title, underline, text)
	}
}

func (c *console) printOverriddenProperties(props map[string]any) {
	if len(props) == 0 {
		return
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	t := &table{
		headers:     []string{"Property", "Value"},
		headerLines: []string{fmt.Sprintf("\n%-20s\n%-20s", "Overridden Properties", "---------------------")},
	}
	for _, n := range names {
		t.add(n, fmt.Sprint(props[n]))
	}
	t.print(c)
}

func (c *console) printQueryErrors(errs []api.QueryError) {
	c.println()
	for _, e := range errs {
		ts := time.UnixMilli(e.Timestamp).UTC().Format("2006-01-02 03:04:05,000 (MST)")
		c.kv("Error Date", ts)
		c.kv("Error Details", e.ErrorMessage)
		c.kv("Error Type", e.Type)
	}
}

// javaMap renders a map as Java's Map.toString: {k1=v1, k2=v2}.
func javaMap(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// printFunctionDescription is the CLI's DESCRIBE FUNCTION layout.
func (c *console) printFunctionDescription(f *api.FunctionDescriptionList) {
	const base, sub = "%-12s: %s\n", "\t%-12s: %s\n"
	name := strings.ToUpper(f.Name)
	c.printf(base, "Name", name)
	if strings.TrimSpace(f.Author) != "" {
		c.printf(base, "Author", f.Author)
	}
	if strings.TrimSpace(f.Version) != "" {
		c.printf(base, "Version", f.Version)
	}
	c.printDescription(base, "Overview", f.Description)
	c.printf(base, "Type", f.Type)
	c.printf(base, "Jar", f.Path)
	c.printf(base, "Variations", "")
	for _, fn := range f.Functions {
		args := make([]string, len(fn.Arguments))
		for i, a := range fn.Arguments {
			args[i] = argString(a)
		}
		c.printf("\n\t%-12s: %s(%s)\n", "Variation", name, strings.Join(args, ", "))
		c.printf(sub, "Returns", fn.ReturnType)
		c.printDescription(sub, "Description", fn.Description)
		for _, a := range fn.Arguments {
			c.printDescription(sub, a.Name, a.Description)
		}
	}
}

func argString(a api.ArgumentInfo) string {
	t := a.Type
	if a.IsVariadic {
		t += "[]"
	}
	if a.Name == "" {
		return t
	}
	return a.Name + " " + t
}

// printDescription prints a labelled description wrapped to the console
// width (at least 80), continuation lines indented under the text.
func (c *console) printDescription(format, label, text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	labelLen := len(strings.ReplaceAll(fmt.Sprintf(strings.TrimSuffix(format, "\n"), label, ""), "\t", "  "))
	wrapped := splitLongLine(text, max(c.width, 80)-labelLen)
	indent := strings.Repeat(" ", labelLen)
	c.printf(format, label, strings.ReplaceAll(wrapped, "\n", "\n"+indent))
}

// splitLongLine breaks text at spaces so that no line exceeds maxLen
// (words longer than that stay whole); existing newlines are kept.
func splitLongLine(text string, maxLen int) string {
	var b strings.Builder
	lineLen := 0
	for _, tok := range tokenize(text) {
		isNewline := tok == "\n"
		if isNewline || lineLen+textWidth(tok) > maxLen {
			b.WriteString("\n")
			lineLen = 0
			if isNewline {
				continue
			}
		}
		b.WriteString(tok)
		lineLen += textWidth(tok)
	}
	return b.String()
}

// tokenize splits text into words, single spaces and newlines (Java's
// StringTokenizer(text, " \n", true)).
func tokenize(text string) []string {
	var toks []string
	start := 0
	for i := 0; i < len(text); i++ {
		if text[i] == ' ' || text[i] == '\n' {
			if i > start {
				toks = append(toks, text[start:i])
			}
			toks = append(toks, text[i:i+1])
			start = i + 1
		}
	}
	if start < len(text) {
		toks = append(toks, text[start:])
	}
	return toks
}
