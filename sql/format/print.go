package format

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/sqlstream/sqlstream/sql/format/avro"
	"github.com/sqlstream/sqlstream/sql/format/protobuf"
)

// RenderRegistryRecord renders a wire-format record for PRINT as ksqlDB
// prints what Confluent's deserializers return: Avro as GenericData's
// toString ({"F": 1, "S": "x"}), protobuf as TextFormat's
// shortDebugString (F: 1 S: "x"), JSON_SR as compact JSON text. ok is
// false when b is not in the wire format, no registry is given, it does
// not serve the id (or its references), or the payload does not read
// with the schema: PRINT then shows the bytes as it guesses them.
func RenderRegistryRecord(ctx context.Context, reg SchemaRegistry, b []byte) (string, bool) {
	var h sr.ConfluentHeader
	id, payload, err := h.DecodeID(b)
	if err != nil || reg == nil {
		return "", false
	}
	rs, err := reg.SchemaByID(ctx, id)
	if err != nil {
		return "", false
	}
	refs, err := ResolveReferences(ctx, reg, rs.Schema)
	if err != nil {
		return "", false
	}
	s, err := renderPayload(rs, refs, payload, &h)
	return s, err == nil
}

func renderPayload(rs RegisteredSchema, refs map[string]string, payload []byte, h *sr.ConfluentHeader) (string, error) {
	switch rs.Type {
	case AvroSchema:
		return avro.Render(rs.Text, refs, payload)
	case ProtobufSchema:
		indexes, rest, err := h.DecodeIndex(payload, max(len(payload), 1))
		if err != nil {
			return "", err
		}
		return protobuf.RenderShort(rs.Text, refs, indexes, rest)
	case JSONSchema:
		var out bytes.Buffer
		if err := json.Compact(&out, payload); err != nil {
			return "", err
		}
		return out.String(), nil
	}
	return "", fmt.Errorf("schema type %s", rs.Type)
}
