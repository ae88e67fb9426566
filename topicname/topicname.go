// Package topicname holds Kafka's rule for topic names, shared by the
// planner (CREATE … WITH (KAFKA_TOPIC=…) and the names of internal topics)
// and the embedded broker (CreateTopics from any client). A name the
// broker cannot store as a directory would make its data directory
// unbootable, so both check it before anything is created.
package topicname

import (
	"fmt"
	"strings"
)

// MaxLen is the longest topic name Kafka accepts: 249 characters, so that
// a partition's directory name (topic, '-', partition number) fits in the
// 255 bytes a file name may have.
const MaxLen = 249

// Validate returns nil when name is a legal Kafka topic name: 1 to MaxLen
// characters from [a-zA-Z0-9._-], and neither "." nor "..". The error says
// which rule the name breaks.
func Validate(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("topic name is empty")
	case name == "." || name == "..":
		return fmt.Errorf("topic name cannot be %q", name)
	case len(name) > MaxLen:
		return fmt.Errorf("topic name is %d characters long, the maximum is %d", len(name), MaxLen)
	}
	if i := strings.IndexFunc(name, func(r rune) bool { return !legal(r) }); i >= 0 {
		return fmt.Errorf("topic name %q has the illegal character %q at position %d: only ASCII letters, digits, '.', '_' and '-' are allowed", name, name[i:i+1], i+1)
	}
	return nil
}

func legal(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
}
