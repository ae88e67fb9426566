package format

import (
	"encoding/binary"
	"math"
	"strconv"

	"github.com/sqlstream/sqlstream/sql/types"
)

// kafkaCodec is the KAFKA format: Kafka's primitive serdes for one column.
// INTEGER (and DATE, TIME) are 4 bytes big-endian, BIGINT (and TIMESTAMP)
// 8 bytes big-endian, DOUBLE 8 bytes IEEE 754 big-endian, STRING UTF-8,
// BYTES raw.
type kafkaCodec struct {
	col types.Column
	// keys, when set, is the arena the codec's one task decodes into
	// (NewTaskKeyCodec).
	keys *keyArena
}

var _ Codec = (*kafkaCodec)(nil)

func newKafkaCodec(col types.Column) *kafkaCodec { return &kafkaCodec{col: col} }

// Decode reads the single column from data.
func (c *kafkaCodec) Decode(data []byte, dst []any) error {
	switch c.col.Type.Kind {
	case types.KindString:
		if c.keys != nil {
			dst[0] = c.keys.string(data)
			return nil
		}
		dst[0] = string(data)
		return nil
	case types.KindBytes:
		dst[0] = append([]byte{}, data...)
		return nil
	}
	width := c.width()
	if len(data) != width {
		return &DecodeError{Format: Kafka, Column: "`" + c.col.Name + "`", Offset: -1,
			Want: strconv.Itoa(width) + " bytes for " + c.col.Type.String(),
			Text: excerpt(data, 0), Msg: "wrong size: got " + strconv.Itoa(len(data)) + " bytes"}
	}
	dst[0] = c.fixed(data)
	return nil
}

func (c *kafkaCodec) width() int {
	switch c.col.Type.Kind {
	case types.KindInteger, types.KindDate, types.KindTime:
		return 4
	}
	return 8
}

func (c *kafkaCodec) fixed(data []byte) any {
	switch c.col.Type.Kind {
	case types.KindInteger:
		if c.keys != nil {
			return c.keys.int32(int32(binary.BigEndian.Uint32(data)))
		}
		return int32(binary.BigEndian.Uint32(data))
	case types.KindDate:
		return types.Date(binary.BigEndian.Uint32(data))
	case types.KindTime:
		return types.Time(binary.BigEndian.Uint32(data))
	case types.KindBigint:
		if c.keys != nil {
			return c.keys.int64(int64(binary.BigEndian.Uint64(data)))
		}
		return int64(binary.BigEndian.Uint64(data))
	case types.KindTimestamp:
		return types.Timestamp(binary.BigEndian.Uint64(data))
	}
	return math.Float64frombits(binary.BigEndian.Uint64(data))
}

// kafkaSize is the bytes v takes in the KAFKA format, for a buffer
// allocated once: a string or bytes value its length, a number 8.
func kafkaSize(v any) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case []byte:
		return len(x)
	}
	return 8
}

// Encode appends the column's bytes; NULL encodes as a nil record.
func (c *kafkaCodec) Encode(buf []byte, vals []any) ([]byte, error) {
	if vals[0] == nil {
		return nil, nil
	}
	if buf == nil {
		buf = make([]byte, 0, kafkaSize(vals[0]))
	}
	switch x := vals[0].(type) {
	case string:
		if c.col.Type.Kind == types.KindString {
			return append(buf, x...), nil
		}
	case []byte:
		if c.col.Type.Kind == types.KindBytes {
			return append(buf, x...), nil
		}
	case float64:
		if c.col.Type.Kind == types.KindDouble {
			return binary.BigEndian.AppendUint64(buf, math.Float64bits(x)), nil
		}
	default:
		if i, ok := integerOf(x, c.col.Type); ok {
			if c.width() == 4 {
				return binary.BigEndian.AppendUint32(buf, uint32(i)), nil
			}
			return binary.BigEndian.AppendUint64(buf, uint64(i)), nil
		}
	}
	return buf, typeMismatch(vals[0], c.col.Type)
}
