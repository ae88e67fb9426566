package format

import (
	"encoding/binary"
	"fmt"

	"github.com/sqlstream/sqlstream/sql/types"
)

// windowBytes is the size of one window bound in a windowed key.
const windowBytes = 8

// EncodeWindowedKey wraps serialized key bytes the way Kafka Streams'
// windowed serdes do. Time (tumbling, hopping) windows append the window
// start as 8 bytes big-endian (TimeWindowedSerializer); session windows
// append the end and then the start (SessionWindowedSerializer).
func EncodeWindowedKey(inner []byte, w types.Window, session bool) []byte {
	n := windowBytes
	if session {
		n *= 2
	}
	return AppendWindow(append(make([]byte, 0, len(inner)+n), inner...), w, session)
}

// AppendWindow appends the window of a windowed key (see
// EncodeWindowedKey) to key, in place when it has room.
func AppendWindow(key []byte, w types.Window, session bool) []byte {
	if session {
		key = binary.BigEndian.AppendUint64(key, uint64(w.End))
	}
	return binary.BigEndian.AppendUint64(key, uint64(w.Start))
}

// DecodeWindowedKey splits a windowed key into the serialized inner key
// (aliasing b) and the window. For time windows the key carries only the
// start: the returned End is 0 and the caller sets it to Start + size.
func DecodeWindowedKey(b []byte, session bool) (inner []byte, w types.Window, err error) {
	n := windowBytes
	if session {
		n *= 2
	}
	if len(b) < n {
		return nil, types.Window{}, &DecodeError{Format: "windowed key", Offset: -1,
			Want: fmt.Sprintf("at least %d bytes", n), Text: excerpt(b, 0),
			Msg: fmt.Sprintf("windowed key too short: %d bytes", len(b))}
	}
	inner = b[:len(b)-n]
	tail := b[len(b)-n:]
	if session {
		w.End = int64(binary.BigEndian.Uint64(tail))
		w.Start = int64(binary.BigEndian.Uint64(tail[windowBytes:]))
		return inner, w, nil
	}
	w.Start = int64(binary.BigEndian.Uint64(tail))
	return inner, w, nil
}
