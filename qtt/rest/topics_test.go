package rest

import (
	"fmt"
	"testing"

	"github.com/sqlstream/sqlstream/qtt"
)

// TestAddInferredTopics: the topics of CREATE statements with columns
// (PARTITIONS or 4) and of records (4) join the declared ones, which keep
// their declaration; CREATE … AS SELECT names none.
func TestAddInferredTopics(t *testing.T) {
	one := int32(1)
	v := &qtt.Variant{
		Topics: []qtt.TopicSpec{{Name: "declared", Partitions: &one}},
		Statements: []string{
			"CREATE TABLE a (id INT PRIMARY KEY, v INT) WITH (kafka_topic='a_topic', partitions=2, value_format='JSON');",
			"CREATE STREAM b (id INT KEY, v INT) WITH (kafka_topic='b_topic', value_format='JSON');",
			"CREATE STREAM c WITH (kafka_topic='declared', value_format='JSON');",
			"CREATE TABLE d AS SELECT * FROM a;",
			"CREATE STREAM broken (",
		},
		Inputs:  []qtt.RecordSpec{{Topic: "b_topic"}, {Topic: "in_topic"}},
		Outputs: []qtt.RecordSpec{{Topic: "D"}},
	}
	addInferredTopics(v)
	var got []string
	for _, tp := range v.Topics {
		got = append(got, fmt.Sprintf("%s=%d", tp.Name, *tp.Partitions))
	}
	if want := "[declared=1 a_topic=2 b_topic=4 in_topic=4 D=4]"; fmt.Sprint(got) != want {
		t.Fatalf("topics %v, want %s", got, want)
	}
}
