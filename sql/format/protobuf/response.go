package protobuf

import (
	"github.com/sqlstream/sqlstream/sql/types"
)

// QueryResponse encodes the rows of a query answered in ksqlDB's protobuf
// form (Accept: application/vnd.ksql.v1+protobuf): the header carries
// ProtoSchema, the .proto text of one message with a field per result
// column (key columns included, ConnectDefault1 as ksqlDB names it), and
// each row is that message's bytes. Clients decode the rows with the
// schema; ksqlDB's tests print them in TextFormat (NewTextPrinter).
type QueryResponse struct {
	ProtoSchema string
	enc         Encoder
}

// NewQueryResponse compiles the response encoding of result columns
// cols. A column type protobuf cannot carry is an error.
func NewQueryResponse(cols []types.Column) (*QueryResponse, error) {
	schema, err := Schema(cols, Options{})
	if err != nil {
		return nil, err
	}
	enc, err := NewEncoder(schema, nil, cols, Options{})
	if err != nil {
		return nil, err
	}
	return &QueryResponse{ProtoSchema: schema, enc: enc}, nil
}

// Row appends the message of one row's values to buf.
func (q *QueryResponse) Row(buf []byte, vals []any) ([]byte, error) {
	return q.enc.Encode(buf, vals)
}
