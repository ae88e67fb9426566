package api

import (
	"context"
	"encoding/json"

	"github.com/sqlstream/sqlstream/sql/types"
)

// Final messages of a query stream (RowStream.FinalMessage).
const (
	FinalLimitReached   = "Limit Reached"
	FinalQueryCompleted = "Query Completed"
)

// RowStream is what the engine returns for a SELECT (push or pull) or a
// PRINT. The server reads it until io.EOF and then calls Close; it also
// calls Close (without draining) when the client goes away. Next blocks
// until a row is available, the query ends (io.EOF), or ctx is done
// (ctx.Err()). Any other error ends the stream with an error row.
type RowStream interface {
	Header() QueryHeader
	Next(ctx context.Context) (Row, error)
	// FinalMessage is read after io.EOF: "Limit Reached", "Query Completed"
	// or "" (pull queries and PRINT end without one).
	FinalMessage() string
	Close() error
}

// QueryHeader describes a query's output before its first row.
type QueryHeader struct {
	QueryID string
	Columns []types.Column // key columns are marked by NS == types.KeyNS
	Pull    bool           // pull query: key markers in the /query schema string
	Print   bool           // PRINT: rows carry Line, Columns is empty
}

// Schema returns the LogicalSchema string of the /query header:
// "`ID` STRING KEY, `COUNT` BIGINT" (KEY markers only for pull queries).
func (h QueryHeader) Schema() string {
	s := types.Schema{Columns: h.Columns}
	return s.String(h.Pull)
}

// Metadata returns the first line of a /query-stream response.
func (h QueryHeader) Metadata() QueryStreamMetadata {
	m := QueryStreamMetadata{
		QueryID:     h.QueryID,
		ColumnNames: make([]string, len(h.Columns)),
		ColumnTypes: make([]string, len(h.Columns)),
	}
	for i, c := range h.Columns {
		m.ColumnNames[i], m.ColumnTypes[i] = c.Name, c.Type.String()
	}
	return m
}

// Row is one result row: Values (Go values per sql/types, one per header
// column), a table tombstone (only key values set), or one PRINT line.
type Row struct {
	Values    []any
	Tombstone bool
	Line      string // PRINT output line, without the trailing newline
}

// QueryStreamMetadata is the first item of a /query-stream response.
type QueryStreamMetadata struct {
	QueryID     string   `json:"queryId,omitempty"`
	ColumnNames []string `json:"columnNames"`
	ColumnTypes []string `json:"columnTypes"`
}

// StreamedRow is one element of a /query (v1 JSON) response array:
// exactly one of its fields is set.
type StreamedRow struct {
	Header       *StreamedHeader `json:"header,omitempty"`
	Row          *StreamedData   `json:"row,omitempty"`
	FinalMessage string          `json:"finalMessage,omitempty"`
	ErrorMessage *ErrorMessage   `json:"errorMessage,omitempty"`
}

// StreamedHeader is the header element of a /query response.
type StreamedHeader struct {
	QueryID string `json:"queryId"`
	Schema  string `json:"schema"` // see QueryHeader.Schema
	// ProtoSchema is the .proto text of the rows of a response in
	// application/vnd.ksql.v1+protobuf (StreamedProtoData), else empty.
	ProtoSchema string `json:"protoSchema,omitempty"`
}

// StreamedData is a row element of a /query response. Columns are already
// rendered JSON values (sql/format.AppendRESTJSON).
type StreamedData struct {
	Columns   []json.RawMessage `json:"columns"`
	Tombstone bool              `json:"tombstone,omitempty"`
}

// StreamedProtoData is a row element of a /query response in
// application/vnd.ksql.v1+protobuf: the row as one message of the
// header's ProtoSchema, base64 in the JSON.
type StreamedProtoData struct {
	ProtobufBytes []byte `json:"protobufBytes"`
	Tombstone     bool   `json:"tombstone,omitempty"`
}

// InsertAck acknowledges row Seq (0-based) of an /inserts-stream request.
type InsertAck struct {
	Status string `json:"status"` // "ok"
	Seq    int64  `json:"seq"`
}

// InsertError reports the failure of row Seq; the response ends after it.
type InsertError struct {
	Status    string `json:"status"` // "error"
	Seq       int64  `json:"seq"`
	ErrorCode int    `json:"error_code"`
	Message   string `json:"message"`
}
