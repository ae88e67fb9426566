package server

import (
	"encoding/json"
	"errors"
	"io"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/format/protobuf"
)

// rowWriter writes one response format of the query endpoints. Calls
// come in the order header, row…, then one of finish or fail.
type rowWriter interface {
	header(h api.QueryHeader) error
	row(h api.QueryHeader, r api.Row) error
	// finish ends the response after the last row; msg is the stream's
	// final message ("" for none).
	finish(msg string) error
	// fail ends the response with an error after the header.
	fail(e *api.ErrorMessage) error
}

// renderColumns renders a row's values as REST JSON.
func renderColumns(h api.QueryHeader, r api.Row) []json.RawMessage {
	cols := make([]json.RawMessage, len(r.Values))
	for i, v := range r.Values {
		if i < len(h.Columns) {
			cols[i] = format.AppendRESTJSON(nil, v, h.Columns[i].Type)
		} else {
			cols[i], _ = api.Marshal(v)
		}
	}
	return cols
}

// appendColumnsArray appends a row as a bare JSON array.
func appendColumnsArray(buf []byte, h api.QueryHeader, r api.Row) []byte {
	buf = append(buf, '[')
	for i, v := range r.Values {
		if i > 0 {
			buf = append(buf, ',')
		}
		if i < len(h.Columns) {
			buf = format.AppendRESTJSON(buf, v, h.Columns[i].Type)
		} else {
			raw, _ := api.Marshal(v)
			buf = append(buf, raw...)
		}
	}
	return append(buf, ']')
}

func write(w io.Writer, parts ...[]byte) error {
	for _, p := range parts {
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	return nil
}

func mustMarshal(v any) []byte {
	b, err := api.Marshal(v)
	if err != nil {
		b, _ = api.Marshal(&api.ErrorMessage{ErrorCode: api.CodeServerError, Message: "encoding a row: " + err.Error()})
	}
	return b
}

// v1Writer writes the /query format: one JSON array of StreamedRow
// objects, "[" + header, each element followed by ",\n" except the last,
// then "]". Push queries write each element as soon as it comes (a line
// reader sees every row at once); pull queries hold back the last element
// so that no final message is needed, as ksqlDB does.
//
// With proto set (Accept: application/vnd.ksql.v1+protobuf) the header
// adds protoSchema and each row is {"row":{"protobufBytes":…}}, the
// shape ksqlDB's pull queries answer; push queries get the same shape.
type v1Writer struct {
	w     io.Writer
	pull  bool
	held  []byte                  // pull: the element not yet written
	proto *protobuf.QueryResponse // nil: JSON columns
}

func (v *v1Writer) header(h api.QueryHeader) error {
	hdr := &api.StreamedHeader{QueryID: h.QueryID, Schema: h.Schema()}
	if v.proto != nil {
		hdr.ProtoSchema = v.proto.ProtoSchema
	}
	return v.element(append([]byte{'['}, mustMarshal(api.StreamedRow{Header: hdr})...))
}

func (v *v1Writer) row(h api.QueryHeader, r api.Row) error {
	if v.proto != nil {
		return v.protoRow(r)
	}
	return v.element(mustMarshal(api.StreamedRow{
		Row: &api.StreamedData{Columns: renderColumns(h, r), Tombstone: r.Tombstone},
	}))
}

// protoRow writes a row as a protobuf message; a row that cannot be
// encoded ends the response with an error element.
func (v *v1Writer) protoRow(r api.Row) error {
	b, err := v.proto.Row(nil, r.Values)
	if err != nil {
		msg := "encoding a row as protobuf: " + err.Error()
		if ferr := v.fail(&api.ErrorMessage{ErrorCode: api.CodeServerError, Message: msg}); ferr != nil {
			return ferr
		}
		return errors.New(msg) // the response is closed: stop the pump
	}
	return v.element(mustMarshal(struct {
		Row api.StreamedProtoData `json:"row"`
	}{api.StreamedProtoData{ProtobufBytes: b, Tombstone: r.Tombstone}}))
}

// element writes b followed by the separator, or holds it (pull).
func (v *v1Writer) element(b []byte) error {
	if !v.pull {
		return write(v.w, b, []byte(",\n"))
	}
	prev := v.held
	v.held = b
	if prev == nil {
		return nil
	}
	return write(v.w, prev, []byte(",\n"))
}

func (v *v1Writer) finish(msg string) error {
	if v.pull {
		if msg != "" {
			return v.last(mustMarshal(api.StreamedRow{FinalMessage: msg}))
		}
		return write(v.w, v.held, []byte("]"))
	}
	if msg == "" {
		msg = api.FinalQueryCompleted // a push response must end with an element
	}
	return v.last(mustMarshal(api.StreamedRow{FinalMessage: msg}))
}

func (v *v1Writer) fail(e *api.ErrorMessage) error {
	return v.last(mustMarshal(api.StreamedRow{ErrorMessage: e}))
}

// last writes the closing element and "]".
func (v *v1Writer) last(b []byte) error {
	if v.pull && v.held != nil {
		if err := write(v.w, v.held, []byte(",\n")); err != nil {
			return err
		}
		v.held = nil
	}
	return write(v.w, b, []byte("]"))
}

// delimitedWriter writes the /query-stream default format: the metadata
// object, then one JSON array per row, each on its own line. The stream
// just ends; an error is one generic_error line. Push tombstones are
// dropped, as ksqlDB does.
type delimitedWriter struct {
	w io.Writer
}

func (d *delimitedWriter) header(h api.QueryHeader) error {
	return write(d.w, mustMarshal(h.Metadata()), []byte("\n"))
}

func (d *delimitedWriter) row(h api.QueryHeader, r api.Row) error {
	if r.Tombstone && !h.Pull {
		return nil
	}
	return write(d.w, appendColumnsArray(nil, h, r), []byte("\n"))
}

func (d *delimitedWriter) finish(string) error { return nil }

func (d *delimitedWriter) fail(e *api.ErrorMessage) error {
	return write(d.w, mustMarshal(e), []byte("\n"))
}

// jsonArrayWriter writes /query-stream with Accept: application/json:
// "[" + metadata, "," + row…, "]" (no newlines).
type jsonArrayWriter struct {
	w io.Writer
}

func (j *jsonArrayWriter) header(h api.QueryHeader) error {
	return write(j.w, []byte("["), mustMarshal(h.Metadata()))
}

func (j *jsonArrayWriter) row(h api.QueryHeader, r api.Row) error {
	if r.Tombstone && !h.Pull {
		return nil
	}
	return write(j.w, []byte(","), appendColumnsArray(nil, h, r))
}

func (j *jsonArrayWriter) finish(string) error { return write(j.w, []byte("]")) }

func (j *jsonArrayWriter) fail(e *api.ErrorMessage) error {
	return write(j.w, []byte(","), mustMarshal(e), []byte("]"))
}

// printWriter writes PRINT output: one text line per record, an error as
// one generic_error line.
type printWriter struct {
	w io.Writer
}

func (p *printWriter) header(api.QueryHeader) error { return nil }

func (p *printWriter) row(_ api.QueryHeader, r api.Row) error {
	return write(p.w, []byte(r.Line), []byte("\n"))
}

func (p *printWriter) finish(string) error { return nil }

func (p *printWriter) fail(e *api.ErrorMessage) error {
	return write(p.w, mustMarshal(e), []byte("\n"))
}
