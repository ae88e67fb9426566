package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/sql/format/protobuf"
	"github.com/sqlstream/sqlstream/sql/script"
)

// queryRequest is a SELECT or PRINT from /query or /query-stream.
type queryRequest struct {
	sql   string
	props map[string]any
	vars  map[string]string
	media string       // negotiated media type (Content-Type)
	form  streamFormat // how rows are framed
}

// protobuf reports whether the response's rows are protobuf messages.
func (q queryRequest) protobuf() bool { return q.media == mediaV1Protobuf }

// streamFormat is the framing of a query response.
type streamFormat uint8

const (
	formV1        streamFormat = iota // /query's JSON array of StreamedRow
	formDelimited                     // one JSON document per line
	formJSONArray                     // /query-stream's [metadata,row,…]
)

// handleQuery serves POST /query: the v1 JSON array by default (also for
// Accept: application/json), the delimited format or the v1 array of
// protobuf rows on request.
func (s *Server) handleQuery(w http.ResponseWriter, r *http.Request) {
	offers := []string{mediaKsqlV1, mediaJSON, mediaDelimited, mediaV1Protobuf}
	media, ok := negotiate(r, offers...)
	if !ok {
		writeNotAcceptable(w, offers...)
		return
	}
	req, bad := s.decodeKsqlRequest(w, r)
	if bad != nil {
		writeErrorBody(w, bad)
		return
	}
	form := formV1
	if media == mediaDelimited {
		form = formDelimited
	}
	s.serveQuery(w, r, queryRequest{sql: req.Ksql, props: req.StreamsProperties, vars: req.SessionVariables, media: media, form: form})
}

// handleQueryStream serves POST /query-stream over HTTP/1.1 (chunked) or
// HTTP/2: delimited by default, a JSON array for application/json, the
// /query format for application/vnd.ksql.v1+json and (rows as protobuf)
// application/vnd.ksql.v1+protobuf.
func (s *Server) handleQueryStream(w http.ResponseWriter, r *http.Request) {
	offers := []string{mediaDelimited, mediaJSON, mediaKsqlV1, mediaV1Protobuf}
	media, ok := negotiate(r, offers...)
	if !ok {
		writeNotAcceptable(w, offers...)
		return
	}
	body, bad := s.readBody(w, r)
	if bad != nil {
		writeErrorBody(w, bad)
		return
	}
	args, sql, bad := parseQueryStreamArgs(body)
	if bad != nil {
		writeErrorBody(w, bad)
		return
	}
	if parts, ok := forwardedPull(args); ok {
		s.servePeerQuery(w, r, body, queryRequest{sql: sql, props: args.Properties, media: media, form: queryStreamForm(media)}, parts)
		return
	}
	if script.FirstWord(sql) == "PRINT" && media != mediaDelimited {
		writeNotAcceptable(w, mediaDelimited) // ksqlDB prints topics in the delimited format only
		return
	}
	s.serveQuery(w, r, queryRequest{sql: sql, props: args.Properties, vars: args.SessionVariables,
		media: media, form: queryStreamForm(media)})
}

// queryStreamForm is the framing /query-stream uses for a media type.
func queryStreamForm(media string) streamFormat {
	switch media {
	case mediaJSON:
		return formJSONArray
	case mediaKsqlV1, mediaV1Protobuf:
		return formV1
	}
	return formDelimited
}

// serveQuery starts the query and streams its rows. Errors before the
// header are ordinary error responses; later ones end the stream with an
// error element.
func (s *Server) serveQuery(w http.ResponseWriter, r *http.Request, q queryRequest) {
	stream, err := s.engine.Query(r.Context(), q.sql, q.props, q.vars)
	s.streamRows(w, r, q, stream, err)
}

// servePeerQuery runs a pull query a peer forwarded, once its signature
// checks.
func (s *Server) servePeerQuery(w http.ResponseWriter, r *http.Request, body []byte, q queryRequest, partitions string) {
	p, bad := s.verifiedPeer(r, body)
	if bad != nil {
		writeErrorBody(w, bad)
		return
	}
	stream, err := p.PeerQuery(r.Context(), q.sql, q.props, partitions)
	s.streamRows(w, r, q, stream, err)
}

// streamRows answers with a started query's rows, or its error.
func (s *Server) streamRows(w http.ResponseWriter, r *http.Request, q queryRequest, stream api.RowStream, err error) {
	ctx := r.Context()
	if err != nil {
		writeErrorBody(w, apiError(err, q.sql))
		return
	}
	defer func() {
		if err := stream.Close(); err != nil {
			s.cfg.logger.Warn("closing query stream", "query", stream.Header().QueryID, "err", err)
		}
	}()
	h := stream.Header()
	out, bad := newRowWriter(q, h, w)
	if bad != nil {
		writeErrorBody(w, bad)
		return
	}
	w.Header().Set("Content-Type", contentType(q.media))
	w.WriteHeader(http.StatusOK)
	guard := s.newStallGuard(w)
	defer guard.release()
	p := pump{ctx: ctx, stream: stream, header: h, out: out, flush: flusher(w, !h.Pull), guard: guard}
	if err := p.run(); err != nil && ctx.Err() == nil {
		s.cfg.logger.Debug("query response ended early", "query", h.QueryID, "err", err)
	}
}

// newRowWriter picks the writer of q's format. The error, before
// anything is written, is a result column protobuf cannot carry.
func newRowWriter(q queryRequest, h api.QueryHeader, w io.Writer) (rowWriter, httpError) {
	switch {
	case h.Print:
		return &printWriter{w: w}, nil
	case q.form == formDelimited:
		return &delimitedWriter{w: w}, nil
	case q.form == formJSONArray:
		return &jsonArrayWriter{w: w}, nil
	case q.protobuf():
		enc, err := protobuf.NewQueryResponse(h.Columns)
		if err != nil {
			return nil, &api.ErrorMessage{ErrorCode: api.CodeBadRequest,
				Message: "The result of this query cannot be sent as protobuf (" + err.Error() + "); ask for application/vnd.ksql.v1+json instead."}
		}
		return &v1Writer{w: w, pull: h.Pull, proto: enc}, nil
	}
	return &v1Writer{w: w, pull: h.Pull}, nil
}

// pullFlushInterval bounds how long pull query output waits in the
// response buffer (ksqlDB flushes pull results every 200 ms).
const pullFlushInterval = 200 * time.Millisecond

// flusher returns a function that pushes written bytes to the client:
// always (push queries, one row at a time) or at most every
// pullFlushInterval (pull queries, whose output is otherwise buffered).
func flusher(w http.ResponseWriter, eager bool) func() {
	rc := http.NewResponseController(w)
	if eager {
		return func() { _ = rc.Flush() }
	}
	last := time.Now()
	return func() {
		if time.Since(last) >= pullFlushInterval {
			_ = rc.Flush()
			last = time.Now()
		}
	}
}

// pump copies rows from a RowStream to a rowWriter.
type pump struct {
	ctx    context.Context
	stream api.RowStream
	header api.QueryHeader
	out    rowWriter
	flush  func()
	guard  *stallGuard // bounds each row's write
}

// run writes the header and every row until the stream ends, fails or the
// client goes away (ctx done, or a write error).
func (p *pump) run() error {
	p.guard.arm()
	if err := p.out.header(p.header); err != nil {
		return err
	}
	p.flush()
	for {
		row, err := p.stream.Next(p.ctx)
		if err != nil {
			return p.end(err)
		}
		p.guard.arm()
		if err := p.out.row(p.header, row); err != nil {
			return err
		}
		p.flush()
	}
}

// end finishes the response after Next returned err.
func (p *pump) end(err error) error {
	p.guard.arm()
	defer p.flush()
	switch {
	case errors.Is(err, io.EOF):
		return p.out.finish(p.stream.FinalMessage())
	case p.ctx.Err() != nil:
		return p.ctx.Err()
	}
	return p.out.fail(errorMessage(apiError(err, "")))
}

// errorMessage turns any API error into the generic_error form used inside
// query streams.
func errorMessage(e httpError) *api.ErrorMessage {
	var em *api.ErrorMessage
	if errors.As(e, &em) {
		return em
	}
	var se *api.StatementError
	if errors.As(e, &se) {
		return &api.ErrorMessage{ErrorCode: se.ErrorCode, Message: se.Message}
	}
	return &api.ErrorMessage{ErrorCode: api.CodeServerError, Message: e.Error()}
}
