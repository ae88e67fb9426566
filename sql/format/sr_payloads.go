package format

import (
	"errors"
	"fmt"

	"github.com/sqlstream/sqlstream/sql/format/avro"
	"github.com/sqlstream/sqlstream/sql/format/protobuf"
	"github.com/sqlstream/sqlstream/sql/types"
)

// avroPayload is AVRO's payload: Avro binary through sql/format/avro's
// codecs compiled per (writer schema, reader columns).
type avroPayload struct{}

var _ srPayload = avroPayload{}

func (avroPayload) schemaType() SchemaType { return AvroSchema }
func (avroPayload) hasIndexes() bool       { return false }

func avroOptions(spec Spec, unwrapped, key bool) avro.Options {
	return avro.Options{FullName: spec.FullName, Unwrapped: unwrapped, Key: key}
}

func (avroPayload) schema(cols []types.Column, spec Spec, unwrapped, key bool) (Schema, error) {
	text, err := avro.Schema(cols, avroOptions(spec, unwrapped, key))
	return Schema{Type: AvroSchema, Text: text}, err
}

func (avroPayload) decoder(w RegisteredSchema, refs map[string]string, _ []int, cols []types.Column, read []bool, spec Spec, unwrapped, key bool) (payloadDecoder, error) {
	o := avroOptions(spec, unwrapped, key)
	o.Read = read
	return avro.NewDecoder(w.Text, refs, cols, o)
}

func (avroPayload) encoder(s RegisteredSchema, refs map[string]string, cols []types.Column, spec Spec, unwrapped, key bool) (payloadEncoder, []int, error) {
	enc, err := avro.NewEncoder(s.Text, refs, cols, avroOptions(spec, unwrapped, key))
	return enc, nil, err
}

// protobufPayload is PROTOBUF's payload: protobuf wire data through
// sql/format/protobuf's codecs; the header names the message by indexes.
type protobufPayload struct{}

var _ srPayload = protobufPayload{}

func (protobufPayload) schemaType() SchemaType { return ProtobufSchema }
func (protobufPayload) hasIndexes() bool       { return true }

func protobufOptions(spec Spec, unwrapped, key bool) protobuf.Options {
	return protobuf.Options{FullName: spec.FullName, Unwrapped: unwrapped, Key: key, NullableRepresentation: spec.NullableRepresentation}
}

func (protobufPayload) schema(cols []types.Column, spec Spec, unwrapped, key bool) (Schema, error) {
	text, err := protobuf.Schema(cols, protobufOptions(spec, unwrapped, key))
	return Schema{Type: ProtobufSchema, Text: text}, err
}

func (protobufPayload) decoder(w RegisteredSchema, refs map[string]string, indexes []int, cols []types.Column, read []bool, spec Spec, unwrapped, key bool) (payloadDecoder, error) {
	name, err := protobuf.MessageByIndexes(w.Text, refs, indexes)
	if err != nil {
		return nil, err
	}
	o := protobufOptions(spec, unwrapped, key)
	o.FullName, o.Read = name, read
	return protobuf.NewDecoder(w.Text, refs, cols, o)
}

func (protobufPayload) encoder(s RegisteredSchema, refs map[string]string, cols []types.Column, spec Spec, unwrapped, key bool) (payloadEncoder, []int, error) {
	o := protobufOptions(spec, unwrapped, key)
	indexes, err := protobuf.MessageIndexes(s.Text, refs, spec.FullName)
	if err != nil {
		return nil, nil, err
	}
	enc, err := protobuf.NewEncoder(s.Text, refs, cols, o)
	return enc, indexes, err
}

// payloadError turns a payload codec's error into a *DecodeError of
// format, its offset shifted by the header's length hdr.
func payloadError(format string, err error, hdr int) error {
	var (
		de *DecodeError
		ae *avro.DecodeError
		pe *protobuf.DecodeError
	)
	switch {
	case errors.As(err, &de):
		de.Format = format
		if de.Offset >= 0 {
			de.Offset += hdr
		}
		return de
	case errors.As(err, &ae):
		return &DecodeError{Format: format, Column: ae.Path, Offset: ae.Offset + hdr, Msg: ae.Msg}
	case errors.As(err, &pe):
		return &DecodeError{Format: format, Column: pe.Path, Offset: pe.Offset + hdr, Msg: pe.Msg}
	}
	return &DecodeError{Format: format, Offset: -1, Msg: err.Error()}
}

// protobufNoSRCodec is PROTOBUF_NOSR: bare protobuf, the schema derived
// from the columns (protobuf.Schema), no header and no registry.
type protobufNoSRCodec struct {
	dec protobuf.Decoder
	enc protobuf.Encoder
	// scratch, set when the codec is one task's (NewTaskValueDecoder),
	// keeps the decoder's strings and boxes from record to record.
	scratch *protobuf.Scratch
	// schema, cols and opts made dec (pruned compiles another).
	schema string
	cols   []types.Column
	opts   protobuf.Options
}

var _ Codec = (*protobufNoSRCodec)(nil)

func newProtobufNoSRCodec(spec Spec, cols []types.Column, unwrapped, key bool) (*protobufNoSRCodec, error) {
	o := protobufOptions(spec, unwrapped, key)
	schema, err := protobuf.Schema(cols, o)
	if err != nil {
		return nil, err
	}
	o.FullName = "" // Schema names the message FullName; it is the first one
	dec, err := protobuf.NewDecoder(schema, nil, cols, o)
	if err != nil {
		return nil, fmt.Errorf("PROTOBUF_NOSR: %w", err)
	}
	enc, err := protobuf.NewEncoder(schema, nil, cols, o)
	if err != nil {
		return nil, fmt.Errorf("PROTOBUF_NOSR: %w", err)
	}
	return &protobufNoSRCodec{dec: dec, enc: enc, schema: schema, cols: cols, opts: o}, nil
}

// pruned implements columnPruner. The schema compiled once already, so
// compiling it again cannot fail; if it did, every column is decoded.
func (c *protobufNoSRCodec) pruned(read []bool) Codec {
	o := c.opts
	o.Read = read
	dec, err := protobuf.NewDecoder(c.schema, nil, c.cols, o)
	if err != nil {
		return c
	}
	p := *c
	p.dec = dec
	return &p
}

// Decode reads a bare protobuf message.
func (c *protobufNoSRCodec) Decode(data []byte, dst []any) error {
	var err error
	if c.scratch != nil {
		err = c.dec.DecodeScratch(c.scratch, data, dst)
	} else {
		err = c.dec.Decode(data, dst)
	}
	if err != nil {
		return payloadError(ProtobufNoSR, err, 0)
	}
	return nil
}

// Encode appends a bare protobuf message; it is never a null record
// (an all-default message is empty, not nil).
func (c *protobufNoSRCodec) Encode(buf []byte, vals []any) ([]byte, error) {
	b, err := c.enc.Encode(buf, vals)
	if b == nil && err == nil {
		b = []byte{}
	}
	return b, err
}
