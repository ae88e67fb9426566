package functions

import (
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strings"

	"github.com/sqlstream/sqlstream/sql/functions/internal/java"
)

// bytesDefs are ENCODE, MD5, TO_BYTES/FROM_BYTES and the numeric
// conversions from BYTES.
func bytesDefs() []ScalarDef {
	return []ScalarDef{
		{Name: "ENCODE", Category: CatString,
			Description: "Takes an input string s, which is encoded as input_encoding, and encodes it as " +
				"output_encoding. The accepted input and output encodings are: hex, utf8, ascii and base64. " +
				"Throws exception if provided encodings are not supported.",
			Overloads: []Overload{{Sig: "ENCODE(STRING str, STRING inputEncoding, STRING outputEncoding) STRING", Fn: encodeText}}},
		{Name: "MD5", Category: CatString,
			Description: "Returns the hex-encoded MD5 hash of the UTF-8 bytes of the input string.",
			Overloads:   []Overload{{Sig: "MD5(STRING input) STRING", Fn: md5Hex}}},
		{Name: "TO_BYTES", Category: CatString,
			Description: "Converts a STRING value in the specified encoding to BYTES. The accepted encoders are " +
				"'hex', 'utf8', 'ascii', and 'base64'.",
			Overloads: []Overload{{Sig: "TO_BYTES(STRING value, STRING encoding) BYTES", Fn: toBytes}}},
		{Name: "FROM_BYTES", Category: CatString,
			Description: "Converts a BYTES value to STRING in the specified encoding. The accepted encoders are " +
				"'hex', 'utf8', 'ascii', and 'base64'.",
			Overloads: []Overload{{Sig: "FROM_BYTES(BYTES value, STRING encoding) STRING", Fn: fromBytes}}},
		fromBytesDef("INT_FROM_BYTES", "INTEGER", 4, func(b []byte, o binary.ByteOrder) any { return int32(o.Uint32(b)) }),
		fromBytesDef("BIGINT_FROM_BYTES", "BIGINT", 8, func(b []byte, o binary.ByteOrder) any { return int64(o.Uint64(b)) }),
		fromBytesDef("DOUBLE_FROM_BYTES", "DOUBLE", 8, func(b []byte, o binary.ByteOrder) any {
			return math.Float64frombits(o.Uint64(b))
		}),
	}
}

func toBytes(args []any) (any, error) {
	c, err := java.BytesCodec(args[1].(string))
	if err != nil {
		return nil, err
	}
	return c.Decode(args[0].(string))
}

func fromBytes(args []any) (any, error) {
	c, err := java.BytesCodec(args[1].(string))
	if err != nil {
		return nil, err
	}
	return c.Encode(args[0].([]byte)), nil
}

func md5Hex(args []any) (any, error) {
	sum := md5.Sum([]byte(args[0].(string)))
	return hex.EncodeToString(sum[:]), nil
}

// fromBytesDef declares NAME(BYTES [, STRING byteOrder]) returning a
// number read from exactly size bytes (big-endian unless told otherwise).
func fromBytesDef(name, ret string, size int, read func([]byte, binary.ByteOrder) any) ScalarDef {
	fn := func(args []any) (any, error) {
		b := args[0].([]byte)
		if len(b) != size {
			return nil, fmt.Errorf("%s: number of bytes must be equal to %d, but found %d", name, size, len(b))
		}
		order := binary.ByteOrder(binary.BigEndian)
		if len(args) > 1 {
			var err error
			if order, err = parseByteOrder(args[1].(string)); err != nil {
				return nil, err
			}
		}
		return read(b, order), nil
	}
	return ScalarDef{Name: name, Category: CatConversion,
		Description: fmt.Sprintf("Converts a BYTES value to an %s value according to the specified byte order "+
			"('BIG_ENDIAN', the default, or 'LITTLE_ENDIAN'). BYTES must be %d bytes long.", ret, size),
		Overloads: []Overload{
			{Sig: name + "(BYTES value) " + ret, Fn: fn},
			{Sig: name + "(BYTES value, STRING byteOrder) " + ret, Fn: fn},
		}}
}

func parseByteOrder(s string) (binary.ByteOrder, error) {
	switch strings.ToUpper(s) {
	case "BIG_ENDIAN":
		return binary.BigEndian, nil
	case "LITTLE_ENDIAN":
		return binary.LittleEndian, nil
	}
	return nil, fmt.Errorf("byte order must be BIG_ENDIAN or LITTLE_ENDIAN, not '%s'", s)
}

// encodeText implements ENCODE: the input is decoded from inputEncoding and
// re-encoded in outputEncoding, with commons-codec's rules (hex input may
// carry a 0x or X'…' wrapper and is case-insensitive, hex output is lower
// case, base64 input is lenient). The two encodings must differ.
func encodeText(args []any) (any, error) {
	in, out := strings.ToLower(args[1].(string)), strings.ToLower(args[2].(string))
	from, okIn := java.EncodeCodec(in)
	to, okOut := java.EncodeCodec(out)
	if !okIn || !okOut || in == out {
		return nil, fmt.Errorf("ENCODE: supported input and output encodings are: hex, utf8, ascii and base64, " +
			"and they must differ")
	}
	b, err := from.Decode(args[0].(string))
	if err != nil {
		return nil, err
	}
	return to.Encode(b), nil
}
