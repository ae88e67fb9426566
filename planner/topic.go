package planner

import (
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/topicname"
)

// validTopic checks a source's or sink's topic name with Kafka's rule
// before anything is created: the broker would refuse it, and the
// embedded broker could not store it in its data directory.
func validTopic(topic string, pos ast.Pos) error {
	if topic == "" {
		return sqlerr.New(sqlerr.Semantic, pos, "KAFKA_TOPIC may not be empty")
	}
	if err := topicname.Validate(topic); err != nil {
		return sqlerr.New(sqlerr.Semantic, pos, "Invalid topic name: %v", err)
	}
	return nil
}
