package printer

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/sql/format"
)

// Printer renders the records of PRINT topic as ksqlDB prints them: the
// key and value formats found by the registry (wire-format bytes whose
// schema id it serves) or guessed from the bytes.
type Printer struct {
	Registry format.SchemaRegistry // nil: none configured
}

// Header is ksqlDB's "Key format: … / Value format: …" lines, put
// in front of the first record PRINT shows (so LIMIT still counts
// records): the formats the first record's bytes could be in.
func (p Printer) Header(ctx context.Context, r *physical.InRecord) string {
	return "Key format: " + p.formatOf(ctx, r.Key, true) + "\nValue format: " + p.formatOf(ctx, r.Value, false) + "\n"
}

// formatOf is printFormat with the registry asked first, as
// ksqlDB's PRINT tries its AVRO, PROTOBUF and JSON_SR deserializers:
// bytes in the wire format whose schema id the registry serves are in
// that schema's format (the bare-bytes guesses that still fit follow).
func (p Printer) formatOf(ctx context.Context, b []byte, key bool) string {
	guess := printFormat(b, key)
	known := p.registryFormat(ctx, b)
	switch {
	case known == "":
		return guess
	case guess == "KAFKA_BYTES":
		return known
	}
	return known + " or " + guess
}

// registryFormat names the registry format of wire-format bytes ("" when
// they are not in the wire format, no registry is configured or it does
// not serve their schema id).
func (p Printer) registryFormat(ctx context.Context, b []byte) string {
	reg := p.Registry
	id, _, ok := format.SplitWireHeader(b)
	if !ok || reg == nil {
		return ""
	}
	rs, err := reg.SchemaByID(ctx, id)
	if err != nil {
		return ""
	}
	switch rs.Type {
	case format.AvroSchema:
		return "AVRO"
	case format.ProtobufSchema:
		return "PROTOBUF"
	case format.JSONSchema:
		return "JSON_SR"
	}
	return ""
}

// printFormat names the formats bytes could be, as renderBytes shows
// them, in ksqlDB's words.
func printFormat(b []byte, key bool) string {
	switch {
	case len(b) == 0:
		return "¯\\_(ツ)_/¯ - no data processed"
	case utf8.Valid(b) && printable(b):
		if json.Valid(b) {
			return "JSON or KAFKA_STRING"
		}
		return "KAFKA_STRING"
	case key && len(b) == 4:
		return "KAFKA_INT"
	case key && len(b) == 8:
		return "KAFKA_BIGINT or KAFKA_DOUBLE"
	}
	return "KAFKA_BYTES"
}

// Line is ksqlDB's PRINT line of one record.
func (p Printer) Line(ctx context.Context, r *physical.InRecord) string {
	ts := time.UnixMilli(r.Timestamp).UTC().Format("2006/01/02 15:04:05.000 Z")
	return fmt.Sprintf("rowtime: %s, key: %s, value: %s, partition: %d", ts, p.render(ctx, r.Key, true), p.render(ctx, r.Value, false), r.Partition)
}

// render renders bytes in the schema registry's wire format by
// their schema (when a registry is configured and knows the id), others
// as renderBytes guesses.
func (p Printer) render(ctx context.Context, b []byte, key bool) string {
	if s, ok := format.RenderRegistryRecord(ctx, p.Registry, b); ok {
		return s
	}
	return renderBytes(b, key)
}

// renderBytes guesses how to show raw bytes: JSON or text as is, 4- and
// 8-byte keys as big-endian integers when they are not text, else hex.
func renderBytes(b []byte, key bool) string {
	switch {
	case b == nil:
		return "<null>"
	case utf8.Valid(b) && printable(b):
		if json.Valid(b) {
			return string(b)
		}
		return string(b)
	case key && len(b) == 4:
		return strconv.FormatInt(int64(int32(binary.BigEndian.Uint32(b))), 10)
	case key && len(b) == 8:
		return strconv.FormatInt(int64(binary.BigEndian.Uint64(b)), 10)
	}
	return "0x" + hex.EncodeToString(b)
}

func printable(b []byte) bool {
	for _, r := range string(b) {
		if r < 0x20 && r != '\n' && r != '\t' && r != '\r' {
			return false
		}
	}
	return true
}

// Lines is PRINT's record callback: every interval-th record read
// (INTERVAL; 0 or 1 for each), the first led by the formats header,
// rendered and handed to emit until emit returns false.
func (p Printer) Lines(ctx context.Context, interval int, emit func(line string) bool) func(*physical.InRecord) bool {
	n := 0
	return func(r *physical.InRecord) bool {
		n++
		if interval > 1 && (n-1)%interval != 0 {
			return true
		}
		line := p.Line(ctx, r)
		if n == 1 {
			line = p.Header(ctx, r) + line
		}
		return emit(line)
	}
}
