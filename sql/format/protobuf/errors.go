package protobuf

import (
	"fmt"
	"strings"
)

// DecodeError is a payload that does not match its schema: the column
// path (A, A.B, A[], A{}), the byte offset in the payload and what was
// wrong. Callers add topic, partition and offset for the processing log.
type DecodeError struct {
	Path   string // empty when the failure concerns the whole message
	Offset int    // byte offset in the payload
	Msg    string
}

// Error renders "failed to deserialize PROTOBUF: column `A.B` at byte 7:
// <msg>".
func (e *DecodeError) Error() string {
	var b strings.Builder
	b.WriteString("failed to deserialize PROTOBUF")
	if e.Path != "" {
		b.WriteString(": column `")
		b.WriteString(e.Path)
		b.WriteString("`")
	}
	fmt.Fprintf(&b, " at byte %d: %s", e.Offset, e.Msg)
	return b.String()
}

// EncodeError is a value that cannot be written in its column's schema
// type.
type EncodeError struct {
	Path string
	Msg  string
}

func (e *EncodeError) Error() string {
	return "failed to serialize PROTOBUF: column `" + e.Path + "`: " + e.Msg
}

func joinPath(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}
