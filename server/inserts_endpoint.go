package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"unicode/utf8"

	"github.com/sqlstream/sqlstream/api"
)

// invalidInsertJSON is ksqlDB's message for a row that is not a JSON
// object.
const invalidInsertJSON = "Invalid JSON in inserts stream"

// handleInsertsStream serves POST /inserts-stream: a first line
// {"target":…} and then one JSON object per row; each row is inserted and
// acknowledged ({"status":"ok","seq":n}) as it arrives. The first failure
// is reported ({"status":"error",…}) and ends the response.
//
// ksqlDB accepts HTTP/2 only; this server also accepts an HTTP/1.1 request
// with a chunked body and answers it full duplex, so that curl and kcat
// can stream rows.
func (s *Server) handleInsertsStream(w http.ResponseWriter, r *http.Request) {
	media, ok := negotiate(r, mediaDelimited, mediaJSON)
	if !ok {
		writeNotAcceptable(w, mediaDelimited, mediaJSON)
		return
	}
	if r.ProtoMajor == 1 {
		if err := http.NewResponseController(w).EnableFullDuplex(); err != nil {
			s.cfg.logger.Debug("inserts-stream: no full duplex", "err", err)
		}
	}
	body := &valueLimiter{r: r.Body, max: maxBodyBytes}
	body.reset()
	dec := json.NewDecoder(body)
	dec.UseNumber()
	target, bad := s.readInsertsArgs(w, dec)
	if bad != nil {
		writeErrorBody(w, bad)
		return
	}
	w.Header().Set("Content-Type", contentType(media))
	w.WriteHeader(http.StatusOK)
	acks := newAckWriter(w, media == mediaJSON)
	acks.guard = s.newStallGuard(w)
	defer acks.guard.release()
	s.insertRows(r, dec, body, target, acks)
	acks.end()
}

// readInsertsArgs decodes the first line of /inserts-stream under the
// body read deadline.
func (s *Server) readInsertsArgs(w http.ResponseWriter, dec *json.Decoder) (string, *api.ErrorMessage) {
	lift := s.bodyDeadline(w)
	target, bad := decodeInsertsArgs(dec)
	if bad == nil {
		lift()
	} else {
		w.Header().Set("Connection", "close")
	}
	return target, bad
}

func decodeInsertsArgs(dec *json.Decoder) (string, *api.ErrorMessage) {
	var args struct {
		Target *string `json:"target"`
	}
	if err := dec.Decode(&args); err != nil {
		switch {
		case errors.Is(err, io.EOF):
			return "", badRequest(`Invalid JSON in request: the body is empty, expected {"target": …}`)
		case isLimitError(err):
			return "", limitError(err)
		}
		return "", badRequest(describeJSONError(err, dec.InputOffset()))
	}
	if bad := requireField(args.Target != nil, "target"); bad != nil {
		return "", bad
	}
	return *args.Target, nil
}

// insertRows inserts rows until the body ends or a row fails.
// Each row may hold up to maxBodyBytes.
func (s *Server) insertRows(r *http.Request, dec *json.Decoder, body *valueLimiter, target string, acks *ackWriter) {
	for seq := int64(0); ; seq++ {
		body.reset()
		var raw json.RawMessage
		err := dec.Decode(&raw)
		switch {
		case errors.Is(err, io.EOF):
			return
		case isLimitError(err):
			acks.fail(seq, limitError(err))
			return
		case err != nil:
			acks.fail(seq, badRequest(invalidInsertJSON))
			return
		}
		if at := invalidUTF8(raw); at >= 0 {
			// encoding/json would put U+FFFD in its place without a word;
			// a record's JSON decoder refuses it too (issue 16.10).
			acks.fail(seq, badRequest(fmt.Sprintf("Invalid JSON in row %d: invalid UTF-8 at byte %d of the row", seq, at)))
			return
		}
		row, err := decodeRow(raw)
		if err != nil || row == nil {
			acks.fail(seq, badRequest(invalidInsertJSON))
			return
		}
		if err := s.engine.Insert(r.Context(), target, row); err != nil {
			acks.fail(seq, errorMessage(userError(err)))
			return
		}
		if !acks.ok(seq) {
			return
		}
	}
}

// ackWriter writes insert acknowledgements, one per line (delimited) or
// as a JSON array, flushing each.
type ackWriter struct {
	guard   *stallGuard // nil: no deadline
	w       io.Writer
	flush   func()
	jsonArr bool
	written bool
}

func newAckWriter(w http.ResponseWriter, jsonArr bool) *ackWriter {
	return &ackWriter{w: w, flush: flusher(w, true), jsonArr: jsonArr}
}

func (a *ackWriter) ok(seq int64) bool {
	return a.item(mustMarshal(api.InsertAck{Status: "ok", Seq: seq}))
}

func (a *ackWriter) fail(seq int64, e *api.ErrorMessage) {
	a.item(mustMarshal(api.InsertError{Status: "error", Seq: seq, ErrorCode: e.ErrorCode, Message: e.Message}))
}

// item writes one element and reports whether the client still listens.
func (a *ackWriter) item(b []byte) bool {
	if a.guard != nil {
		a.guard.arm()
	}
	var err error
	switch {
	case !a.jsonArr:
		err = write(a.w, b, []byte("\n"))
	case a.written:
		err = write(a.w, []byte(","), b)
	default:
		err = write(a.w, []byte("["), b)
	}
	a.written = true
	a.flush()
	return err == nil
}

func (a *ackWriter) end() {
	switch {
	case a.jsonArr && a.written:
		_ = write(a.w, []byte("]"))
	case a.jsonArr:
		_ = write(a.w, []byte("[]"))
	}
}

// invalidUTF8 is the offset of the first byte of b that is not valid
// UTF-8, or -1.
func invalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

// decodeRow decodes one /inserts-stream row as Engine.Insert expects it
// (numbers kept as json.Number).
func decodeRow(raw json.RawMessage) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var row map[string]any
	err := dec.Decode(&row)
	return row, err
}
