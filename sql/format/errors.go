package format

import (
	"errors"
	"strconv"
	"strings"
)

// ErrNullRecord is returned by Decode when the record bytes spell a null
// record (JSON "null" where an object is expected); treat the record like a
// tombstone.
var ErrNullRecord = errors.New("format: record is null")

// maxErrorText bounds the input excerpt kept in a DecodeError.
const maxErrorText = 64

// DecodeError is a record that cannot be deserialized. It names the format,
// the column (a path for nested values: `COL`.`F`[2]), what was expected
// and the offending text, so the caller can write it to the processing log
// together with topic, partition and offset.
type DecodeError struct {
	Format string
	Column string // empty when the failure concerns the whole record
	Want   string // expected SQL type or JSON token, e.g. "INTEGER", "','"
	Text   string // the offending input, truncated
	Offset int    // byte offset of Text in the record; -1 when unknown
	Msg    string
}

// Error renders "failed to deserialize JSON: column `A`: <msg> (expected
// INTEGER, got "x" at byte 7)".
func (e *DecodeError) Error() string {
	var b strings.Builder
	b.WriteString("failed to deserialize ")
	b.WriteString(e.Format)
	if e.Column != "" {
		b.WriteString(": column ")
		b.WriteString(e.Column)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	e.writeDetail(&b)
	return b.String()
}

func (e *DecodeError) writeDetail(b *strings.Builder) {
	var parts []string
	if e.Want != "" {
		parts = append(parts, "expected "+e.Want)
	}
	if e.Text != "" || e.Offset >= 0 {
		got := "got " + strconv.Quote(e.Text)
		if e.Offset >= 0 {
			got += " at byte " + strconv.Itoa(e.Offset)
		}
		parts = append(parts, got)
	}
	if len(parts) > 0 {
		b.WriteString(" (" + strings.Join(parts, ", ") + ")")
	}
}

// excerpt returns at most maxErrorText bytes of b starting at off.
func excerpt(b []byte, off int) string {
	if off < 0 || off > len(b) {
		return ""
	}
	end := min(off+maxErrorText, len(b))
	return string(b[off:end])
}

// prefixColumn prepends a path element to the column of a DecodeError.
func prefixColumn(err error, elem string) error {
	var de *DecodeError
	if errors.As(err, &de) {
		if de.Column == "" || strings.HasPrefix(de.Column, "[") {
			de.Column = elem + de.Column
		} else {
			de.Column = elem + "." + de.Column
		}
	}
	return err
}
