package rest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/qtt"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/format/protobuf"
)

// restResponse is what one statement answered, as JSON-ish values shaped
// like the expected "responses" entries: {"admin": entity} per entity of
// a non-query statement, {"query": [header, row…, finalMessage]} per
// query.
type restResponse map[string]any

// adminResponses turns a statement's entities into one admin response
// each, through their REST JSON encoding.
func adminResponses(ents []api.Entity) ([]restResponse, error) {
	out := make([]restResponse, 0, len(ents))
	for _, e := range ents {
		b, err := json.Marshal(e)
		if err != nil {
			return nil, fmt.Errorf("cannot encode %s entity: %w", e.EntityType(), err)
		}
		v, err := qtt.DecodeJSON(b)
		if err != nil {
			return nil, err
		}
		out = append(out, restResponse{"admin": v})
	}
	return out, nil
}

// streamedRows reads rs to its end as /query streams it: the header, one
// element per row and the final message when there is one. afterHeader
// (may be nil) runs once the header is out; an error it returns ends the
// read. A stream error or ctx ending the read is returned with the
// elements read so far.
func streamedRows(ctx context.Context, rs api.RowStream, afterHeader func() error) ([]any, error) {
	h := rs.Header()
	out := []any{map[string]any{"header": map[string]any{"queryId": h.QueryID, "schema": h.Schema()}}}
	if afterHeader != nil {
		if err := afterHeader(); err != nil {
			return out, err
		}
	}
	for {
		row, err := rs.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return out, err
		}
		out = append(out, map[string]any{"row": rowJSON(h, row)})
	}
	if msg := rs.FinalMessage(); msg != "" {
		out = append(out, map[string]any{"finalMessage": msg})
	}
	return out, nil
}

// protoStreamedRows reads rs to its end as /query streams it with Accept:
// application/vnd.ksql.v1+protobuf, through the encoding the server
// uses (protobuf.QueryResponse): the header with protoSchema, each row's
// protobufBytes decoded with that schema and printed in TextFormat, as
// ksqlDB's RQTT executor prints them, and the final message if any.
func protoStreamedRows(ctx context.Context, rs api.RowStream) ([]any, error) {
	h := rs.Header()
	resp, err := protobuf.NewQueryResponse(h.Columns)
	if err != nil {
		return nil, fmt.Errorf("the result cannot be sent as protobuf: %w", err)
	}
	dec, err := protobuf.NewDecoder(resp.ProtoSchema, nil, h.Columns, protobuf.Options{})
	if err != nil {
		return nil, err
	}
	printer, err := protobuf.NewTextPrinter(resp.ProtoSchema, nil, h.Columns, protobuf.Options{})
	if err != nil {
		return nil, err
	}
	out := []any{map[string]any{"header": map[string]any{"queryId": h.QueryID, "schema": h.Schema(), "protoSchema": resp.ProtoSchema}}}
	vals := make([]any, len(h.Columns))
	for {
		row, err := rs.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return out, err
		}
		b, err := resp.Row(nil, row.Values)
		if err != nil {
			return out, err
		}
		if err := dec.Decode(b, vals); err != nil {
			return out, fmt.Errorf("decoding a protobuf row: %w", err)
		}
		text, err := printer.AppendText(nil, vals)
		if err != nil {
			return out, err
		}
		out = append(out, map[string]any{"row": string(text)})
	}
	if msg := rs.FinalMessage(); msg != "" {
		out = append(out, map[string]any{"finalMessage": msg})
	}
	return out, nil
}

// rowJSON renders one row's columns as the REST API does.
func rowJSON(h api.QueryHeader, row api.Row) map[string]any {
	cols := make([]any, len(h.Columns))
	for i, c := range h.Columns {
		if i >= len(row.Values) {
			break
		}
		v, err := qtt.DecodeJSON(format.AppendRESTJSON(nil, row.Values[i], c.Type))
		if err != nil {
			v = fmt.Sprintf("<unrenderable %v: %v>", row.Values[i], err)
		}
		cols[i] = v
	}
	out := map[string]any{"columns": cols}
	if row.Tombstone {
		out["tombstone"] = true
	}
	return out
}
