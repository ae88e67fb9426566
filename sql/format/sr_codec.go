package format

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/sqlstream/sqlstream/sql/format/avro"
	"github.com/sqlstream/sqlstream/sql/format/protobuf"
	"github.com/sqlstream/sqlstream/sql/types"
)

// registryTimeout bounds one call a codec makes to the schema registry.
const registryTimeout = 30 * time.Second

// payloadDecoder and payloadEncoder are a payload codec's halves (the
// avro and protobuf packages' Decoder and Encoder).
type (
	payloadDecoder interface {
		Decode(payload []byte, dst []any) error
	}
	payloadEncoder interface {
		Encode(buf []byte, vals []any) ([]byte, error)
	}
)

// srPayload is one registry format's payload: the schema ksqlDB registers
// for a list of columns and the codecs compiled from a registered schema.
// The wire header (magic byte, schema id, protobuf message indexes) is
// srCodec's.
type srPayload interface {
	schemaType() SchemaType
	// schema is the schema registered for cols.
	schema(cols []types.Column, spec Spec, unwrapped, key bool) (Schema, error)
	// decoder compiles a decoder of records written with writer (and, for
	// protobuf, the message the header's indexes name) into cols, of
	// which it decodes those read marks (nil: all; NewValueDecoder).
	decoder(writer RegisteredSchema, refs map[string]string, indexes []int, cols []types.Column, read []bool, spec Spec, unwrapped, key bool) (payloadDecoder, error)
	// encoder compiles an encoder of cols into the registered schema s,
	// with the header's message indexes (nil but for protobuf).
	encoder(s RegisteredSchema, refs map[string]string, cols []types.Column, spec Spec, unwrapped, key bool) (payloadEncoder, []int, error)
	// hasIndexes says the header carries protobuf message indexes.
	hasIndexes() bool
}

// srCodec is a registry format's codec: Confluent's wire header (magic
// byte 0, 4-byte big-endian schema id, for protobuf the message-index
// path) and the payload. Decoders are compiled once per writer schema id
// (and message) and cached; the encoder is compiled once, from
// KEY_/VALUE_SCHEMA_ID's schema or from the schema the codec registers
// for its columns (the registry returns the existing id when the schema
// is already there, as Confluent serializers do with
// auto.register.schemas). Safe for concurrent use.
type srCodec struct {
	spec      Spec
	cols      []types.Column
	payload   srPayload
	unwrapped bool
	key       bool
	hdr       sr.ConfluentHeader
	// read marks the columns decoded (nil: all; NewValueDecoder).
	read []bool
	// avroScratch or protoScratch, set when the codec is one task's
	// (NewTaskValueDecoder), keeps its decoders' strings and boxes from
	// record to record.
	avroScratch  *avro.Scratch
	protoScratch *protobuf.Scratch

	// last is the decoder of the last record's schema (nearly every
	// record of a topic has the same): the data path reads it without
	// the lock or the map.
	last atomic.Pointer[lastDecoder]
	// writer is the compiled encoder, once there is one.
	writer atomic.Pointer[compiledEncoder]

	mu       sync.Mutex // guards decoders, unreadable and compiling the encoder
	decoders map[decoderKey]payloadDecoder
	// unreadable are the schemas (by id and message) that cannot be read
	// as the columns, with why: a schema by id never changes, so every
	// later record of one fails alike without compiling it again.
	unreadable map[decoderKey]error
}

type lastDecoder struct {
	id      int
	indexes []int
	dec     payloadDecoder
}

type compiledEncoder struct {
	enc payloadEncoder
	// header is the wire header (magic byte, id, message indexes), the
	// same for every record, so written once here.
	header []byte
}

// decoderKey is a writer schema id and the message its header names.
type decoderKey struct {
	id      int
	indexes string
}

var _ Codec = (*srCodec)(nil)

func newSRCodec(spec Spec, cols []types.Column, p srPayload, unwrapped, key bool) (*srCodec, error) {
	return &srCodec{spec: spec, cols: cols, payload: p, unwrapped: unwrapped, key: key,
		decoders: map[decoderKey]payloadDecoder{}, unreadable: map[decoderKey]error{}}, nil
}

// pruned implements columnPruner: a codec of its own (its decoders are
// compiled for read) that decodes only the columns read marks.
func (c *srCodec) pruned(read []bool) Codec {
	p, _ := newSRCodec(c.spec, c.cols, c.payload, c.unwrapped, c.key)
	p.read = read
	return p
}

// Decode strips the wire header, finds (or compiles) the decoder of the
// record's schema id and decodes the payload into dst.
func (c *srCodec) Decode(data []byte, dst []any) error {
	id, payload, err := c.hdr.DecodeID(data)
	if err != nil {
		return &DecodeError{Format: c.spec.Name, Offset: 0, Text: excerpt(data, 0),
			Msg: "the record does not start with the schema registry wire header (magic byte 0, then a 4-byte schema id)"}
	}
	var indexes []int
	if c.payload.hasIndexes() {
		if indexes, payload, err = c.messageIndexes(payload); err != nil {
			return &DecodeError{Format: c.spec.Name, Offset: 5, Text: excerpt(data, 5),
				Msg: "the wire header's protobuf message indexes are malformed"}
		}
	}
	dec, err := c.cachedDecoder(id, indexes)
	if err != nil {
		return c.decoderError(err, data)
	}
	if err := c.decodePayload(dec, payload, dst); err != nil {
		return payloadError(c.spec.Name, err, len(data)-len(payload))
	}
	return nil
}

// decodePayload decodes with the task's scratch, if the codec has one.
func (c *srCodec) decodePayload(dec payloadDecoder, payload []byte, dst []any) error {
	if c.avroScratch != nil {
		if d, ok := dec.(avro.Decoder); ok {
			return d.DecodeScratch(c.avroScratch, payload, dst)
		}
	}
	if c.protoScratch != nil {
		if d, ok := dec.(protobuf.Decoder); ok {
			return d.DecodeScratch(c.protoScratch, payload, dst)
		}
	}
	return dec.Decode(payload, dst)
}

// decoderError is the error of a record whose schema's decoder could not
// be had: the registry's unavailability as is (not the record's fault),
// else a decode error at the schema id. Apart from Decode, so the data
// path does not move the errors.As target to the heap on every record.
func (c *srCodec) decoderError(err error, data []byte) error {
	var unavailable *RegistryUnavailableError
	if errors.As(err, &unavailable) {
		return unavailable
	}
	return &DecodeError{Format: c.spec.Name, Offset: 1, Text: excerpt(data, 1), Msg: err.Error()}
}

// firstMessage is the index path of a header's 0 byte, the first message.
var firstMessage = []int{0}

// messageIndexes strips the protobuf message-index path; the common
// single 0 byte (the first message) is read without allocating. The path
// holds at most one index per byte left, so a count beyond that is
// malformed: unbounded, franz-go would allocate whatever count the record
// claims (2^45 is a fatal out-of-memory, not an error).
func (c *srCodec) messageIndexes(b []byte) ([]int, []byte, error) {
	if len(b) > 0 && b[0] == 0 {
		return firstMessage, b[1:], nil
	}
	return c.hdr.DecodeIndex(b, max(len(b), 1))
}

// cachedDecoder is decoder behind the last-schema fast path.
func (c *srCodec) cachedDecoder(id int, indexes []int) (payloadDecoder, error) {
	if l := c.last.Load(); l != nil && l.id == id && slices.Equal(l.indexes, indexes) {
		return l.dec, nil
	}
	dec, err := c.decoder(id, indexes)
	if err == nil {
		c.last.Store(&lastDecoder{id: id, indexes: slices.Clone(indexes), dec: dec})
	}
	return dec, err
}

func (c *srCodec) decoder(id int, indexes []int) (payloadDecoder, error) {
	key := decoderKey{id: id, indexes: fmt.Sprint(indexes)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.decoders[key]; ok {
		return d, nil
	}
	if err := c.unreadable[key]; err != nil {
		return nil, err
	}
	rs, err := c.fetch(id)
	if err != nil {
		return nil, err
	}
	refs, err := c.references(rs)
	if err != nil {
		return nil, err
	}
	d, err := c.payload.decoder(rs, refs, indexes, c.cols, c.read, c.spec, c.unwrapped, c.key)
	if err != nil {
		err = fmt.Errorf("schema id %d cannot be read as %s: %w", id, columnList(c.cols), err)
		c.unreadable[key] = err
		return nil, err
	}
	c.decoders[key] = d
	return d, nil
}

// fetch returns the schema of id, checking it is of this format's type.
func (c *srCodec) fetch(id int) (RegisteredSchema, error) {
	reg, err := c.registry()
	if err != nil {
		return RegisteredSchema{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), registryTimeout)
	defer cancel()
	rs, err := reg.SchemaByID(ctx, id)
	if err != nil && !errors.Is(err, ErrSchemaNotFound) {
		return rs, &RegistryUnavailableError{Err: fmt.Errorf("schema id %d: %w", id, err)}
	}
	if err != nil {
		return rs, fmt.Errorf("schema id %d: %w", id, err)
	}
	if want := c.payload.schemaType(); rs.Type != want {
		return rs, fmt.Errorf("schema id %d is a %s schema, not %s as format %s needs", id, rs.Type, want, c.spec.Name)
	}
	return rs, nil
}

// references resolves the schemas rs references.
func (c *srCodec) references(rs RegisteredSchema) (map[string]string, error) {
	if len(rs.References) == 0 {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), registryTimeout)
	defer cancel()
	return ResolveReferences(ctx, c.spec.Registry, rs.Schema)
}

func (c *srCodec) registry() (SchemaRegistry, error) {
	if c.spec.Registry == nil {
		return nil, fmt.Errorf("format %s needs a schema registry and none is configured (set 'ksql.schema.registry.url')", c.spec.Name)
	}
	return c.spec.Registry, nil
}

// Encode appends the wire header and the payload. A single unwrapped NULL
// is a null record, as in JSON, but for protobuf, whose single key column
// is still a one-field message (NULL written as the default).
func (c *srCodec) Encode(buf []byte, vals []any) ([]byte, error) {
	if len(c.cols) == 0 || c.unwrapped && isNull(vals[0]) && !c.payload.hasIndexes() {
		return nil, nil
	}
	w := c.writer.Load()
	if w == nil {
		var err error
		if w, err = c.encoder(); err != nil {
			return buf, err
		}
	}
	return w.enc.Encode(append(buf, w.header...), vals)
}

// encoder compiles the encoder once (a failure is retried on the next
// record: the registry may have been unreachable).
func (c *srCodec) encoder() (*compiledEncoder, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w := c.writer.Load(); w != nil {
		return w, nil
	}
	rs, err := c.writerSchema()
	if err != nil {
		return nil, err
	}
	refs, err := c.references(rs)
	if err != nil {
		return nil, err
	}
	enc, indexes, err := c.payload.encoder(rs, refs, c.cols, c.spec, c.unwrapped, c.key)
	if err != nil {
		return nil, fmt.Errorf("cannot write %s with schema id %d: %w", columnList(c.cols), rs.ID, err)
	}
	header, err := c.hdr.AppendEncode(nil, rs.ID, indexes)
	if err != nil {
		return nil, fmt.Errorf("schema id %d: wire header: %w", rs.ID, err)
	}
	w := &compiledEncoder{enc: enc, header: header}
	c.writer.Store(w)
	return w, nil
}

// writerSchema is KEY_/VALUE_SCHEMA_ID's schema, or the columns' schema
// registered under the subject.
func (c *srCodec) writerSchema() (RegisteredSchema, error) {
	if c.spec.SchemaID != 0 {
		return c.fetch(c.spec.SchemaID)
	}
	reg, err := c.registry()
	if err != nil {
		return RegisteredSchema{}, err
	}
	s, err := c.payload.schema(c.cols, c.spec, c.unwrapped, c.key)
	if err != nil {
		return RegisteredSchema{}, err
	}
	if c.spec.Subject == "" {
		return RegisteredSchema{}, fmt.Errorf("format %s: no subject to register the schema under", c.spec.Name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), registryTimeout)
	defer cancel()
	rs, err := reg.Register(ctx, c.spec.Subject, s)
	var inc *IncompatibleSchemaError
	if err != nil && !errors.As(err, &inc) {
		// Not the record's fault: the writer retries it later.
		return rs, &RegistryUnavailableError{Err: fmt.Errorf("registering the schema of %s: %w", c.spec.Subject, err)}
	}
	return rs, err
}

// RegistrySchema returns the schema the codec of spec registers for cols
// (the key side when key): what CREATE and CREATE … AS SELECT register
// under the subject. The format must use a registry.
func RegistrySchema(spec Spec, cols []types.Column, key bool) (Schema, error) {
	p, ok := payloadOf(spec.Name)
	if !ok {
		return Schema{}, fmt.Errorf("format %s does not use a schema registry", spec.Name)
	}
	cols, _ = serializedColumns(cols)
	unwrapped := len(cols) == 1 && (key || spec.unwrapped())
	return p.schema(cols, spec, unwrapped, key)
}

// payloadOf returns a registry format's payload.
func payloadOf(format string) (srPayload, bool) {
	switch format {
	case JSONSR:
		return jsonSRPayload{}, true
	case Avro:
		return avroPayload{}, true
	case Protobuf:
		return protobufPayload{}, true
	}
	return nil, false
}

// SplitWireHeader returns the schema id and payload of a record in
// Confluent's wire format, ok false when b does not start with one.
func SplitWireHeader(b []byte) (id int, payload []byte, ok bool) {
	var h sr.ConfluentHeader
	id, payload, err := h.DecodeID(b)
	return id, payload, err == nil
}
