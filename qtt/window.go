package qtt

import (
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// encodeWindowedKey appends the window of a test record to its serialized
// key, the Kafka Streams way (format.EncodeWindowedKey).
func encodeWindowedKey(key []byte, w WindowSpec) []byte {
	return format.EncodeWindowedKey(key, types.Window{Start: w.Start, End: w.End}, isSession(&w))
}

// decodeWindowedKey splits a windowed key into the inner key bytes and the
// window, typed "session" or "time" as the test files spell it. For time
// windows End equals Start: the caller adds the window size.
func decodeWindowedKey(b []byte, session bool) ([]byte, WindowSpec, error) {
	inner, w, err := format.DecodeWindowedKey(b, session)
	ws := WindowSpec{Start: w.Start, End: w.End, Type: "time"}
	if session {
		ws.Type = "session"
	}
	return inner, ws, err
}
