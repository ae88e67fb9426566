package avro

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/sqlstream/sqlstream/sql/format/internal/boxes"
)

// reader reads Avro binary encoding from b, at off. Strings are copied
// into slab, one allocation for all the strings of a record (sized by the
// bytes left when the first string is read), and share it.
type reader struct {
	b     []byte
	off   int
	slab  []byte
	arena boxes.Arena // the record's boxed values (box.go)
	// shared, for a Scratch's reader, takes the strings instead of
	// slab: a slab for many records' strings, not the rest of one.
	shared *boxes.Slab
}

// Scratch keeps the string slab and boxes of a decoder one task owns
// (used by one goroutine at a time) from record to record
// (Decoder.DecodeScratch): a record then costs no allocation of its own
// but a share of a slab or chunk when one fills (sql/format/internal/
// boxes).
type Scratch struct {
	r    reader
	slab boxes.Slab
}

// str copies b (just read from the payload) into the slab as a string.
// The slab is only appended to, so the strings it holds never change.
func (r *reader) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if r.shared != nil {
		return r.shared.String(b)
	}
	if cap(r.slab)-len(r.slab) < len(b) {
		r.slab = make([]byte, 0, len(b)+len(r.b)-r.off)
	}
	start := len(r.slab)
	r.slab = append(r.slab, b...)
	return unsafe.String(&r.slab[start], len(b))
}

// DecodeError is a payload that does not match its schema: the column
// path (ITEMS[].PRICE), the byte offset in the payload, and what was
// wrong.
type DecodeError struct {
	Path   string
	Offset int
	Msg    string
}

func (e *DecodeError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("avro: at byte %d: %s", e.Offset, e.Msg)
	}
	return fmt.Sprintf("avro: column %s at byte %d: %s", e.Path, e.Offset, e.Msg)
}

func (r *reader) fail(path, format string, args ...any) error {
	return &DecodeError{Path: path, Offset: r.off, Msg: fmt.Sprintf(format, args...)}
}

// long reads a zig-zag varint of at most 10 bytes.
func (r *reader) long(path string) (int64, error) {
	var u uint64
	for shift := uint(0); shift < 70; shift += 7 {
		if r.off >= len(r.b) {
			return 0, r.fail(path, "truncated: the payload ends inside a number")
		}
		c := r.b[r.off]
		r.off++
		u |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), nil
		}
	}
	return 0, r.fail(path, "a number longer than 10 bytes")
}

func (r *reader) int(path string) (int32, error) {
	start := r.off
	v, err := r.long(path)
	if err != nil {
		return 0, err
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		r.off = start
		return 0, r.fail(path, "int %d out of the 32-bit range", v)
	}
	return int32(v), nil
}

// bytes returns the next length-prefixed bytes, aliasing the payload.
func (r *reader) bytes(path string) ([]byte, error) {
	start := r.off
	n, err := r.long(path)
	if err != nil {
		return nil, err
	}
	if n < 0 || n > int64(len(r.b)-r.off) {
		left := len(r.b) - r.off
		r.off = start
		if n < 0 {
			return nil, r.fail(path, "negative length %d", n)
		}
		return nil, r.fail(path, "truncated: a length of %d with %d bytes left", n, left)
	}
	b := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return b, nil
}

func (r *reader) fixed(path string, n int) ([]byte, error) {
	if n > len(r.b)-r.off {
		return nil, r.fail(path, "truncated: a fixed of %d bytes with %d bytes left", n, len(r.b)-r.off)
	}
	b := r.b[r.off : r.off+n]
	r.off += n
	return b, nil
}

func (r *reader) boolean(path string) (bool, error) {
	if r.off >= len(r.b) {
		return false, r.fail(path, "truncated: the payload ends before a boolean")
	}
	c := r.b[r.off]
	if c > 1 {
		return false, r.fail(path, "boolean byte %d is neither 0 nor 1", c)
	}
	r.off++
	return c == 1, nil
}

func (r *reader) float(path string) (float32, error) {
	b, err := r.fixed(path, 4)
	if err != nil {
		return 0, err
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(b)), nil
}

func (r *reader) double(path string) (float64, error) {
	b, err := r.fixed(path, 8)
	if err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
}

// blockCount reads an array or map block header: the item count (a
// negative count is followed by the block's byte size, which is skipped).
// minItem is the fewest bytes an item takes; a count the remaining bytes
// cannot hold is an error, so a hostile count cannot make us allocate.
func (r *reader) blockCount(path string, minItem int) (int, error) {
	n, err := r.long(path)
	if err != nil {
		return 0, err
	}
	if n < 0 {
		if n == math.MinInt64 {
			return 0, r.fail(path, "block count out of range")
		}
		n = -n
		if _, err := r.long(path); err != nil {
			return 0, err
		}
	}
	left := int64(len(r.b) - r.off)
	if minItem > 0 && n > left/int64(minItem) {
		return 0, r.fail(path, "truncated: a block of %d items with %d bytes left", n, left)
	}
	if minItem == 0 && n > maxEmptyItems {
		return 0, r.fail(path, "a block of %d zero-byte items (at most %d)", n, maxEmptyItems)
	}
	return int(n), nil
}

// maxEmptyItems bounds a block of items that take no bytes (nulls), which
// the payload's length cannot bound.
const maxEmptyItems = 1 << 16

// appendLong appends v as a zig-zag varint.
func appendLong(buf []byte, v int64) []byte {
	u := uint64(v<<1) ^ uint64(v>>63)
	for u >= 0x80 {
		buf = append(buf, byte(u)|0x80)
		u >>= 7
	}
	return append(buf, byte(u))
}

func appendBytes(buf, b []byte) []byte {
	return append(appendLong(buf, int64(len(b))), b...)
}

func appendString(buf []byte, s string) []byte {
	return append(appendLong(buf, int64(len(s))), s...)
}
