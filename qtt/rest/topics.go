package rest

import (
	"slices"
	"strconv"
	"strings"

	"github.com/sqlstream/sqlstream/qtt"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/parser"
)

// defaultPartitions is the partition count of a topic ksqlDB's test
// tools create without being told one (their Topic.DEFAULT_PARTITIONS).
const defaultPartitions = 4

// addInferredTopics adds the topics ksqlDB's REST test executor creates
// on its Kafka cluster before a test runs, besides those the test
// declares (TestCaseBuilderUtil.getAllTopics): the KAFKA_TOPIC of each
// CREATE STREAM|TABLE with columns, with its PARTITIONS or 4, then the
// topic of each input and output record, with 4. So sources, and sinks
// written into existing topics, have ksqlDB's partition counts, which
// co-partitioning checks compare.
func addInferredTopics(v *qtt.Variant) {
	v.Topics = slices.Clone(v.Topics) // variants of one test share the slice
	known := map[string]bool{}
	for _, t := range v.Topics {
		known[t.Name] = true
	}
	add := func(name string, partitions int32) {
		if name != "" && !known[name] {
			known[name] = true
			v.Topics = append(v.Topics, qtt.TopicSpec{Name: name, Partitions: &partitions})
		}
	}
	for _, s := range v.Statements {
		if name, n, ok := createdTopic(s); ok {
			add(name, n)
		}
	}
	for _, rs := range [][]qtt.RecordSpec{v.Inputs, v.Outputs} {
		for _, r := range rs {
			add(r.Topic, defaultPartitions)
		}
	}
}

// createdTopic returns the topic and partition count of a CREATE
// STREAM|TABLE with columns (a statement that does not parse names none:
// running it reports the error).
func createdTopic(stmt string) (string, int32, bool) {
	parsed, err := parser.Parse(stmt)
	if err != nil || len(parsed) != 1 {
		return "", 0, false
	}
	cs, ok := parsed[0].(*ast.CreateSource)
	if !ok || len(cs.Columns) == 0 {
		return "", 0, false
	}
	topic, ok := cs.Props.Get("KAFKA_TOPIC")
	if !ok || topic.Value == nil {
		return "", 0, false
	}
	name, _ := topic.Value.Value.(string)
	n := int32(defaultPartitions)
	if p, ok := cs.Props.Get("PARTITIONS"); ok && p.Value != nil {
		if x, err := strconv.Atoi(strings.TrimSpace(fmtValue(p.Value.Value))); err == nil && x > 0 {
			n = int32(x)
		}
	}
	return name, n, name != ""
}

func fmtValue(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int32:
		return strconv.FormatInt(int64(v), 10)
	case int64:
		return strconv.FormatInt(v, 10)
	}
	return ""
}
