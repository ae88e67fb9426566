package server

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/sqlstream/sqlstream/api"
)

// What one client may cost the server:
//
//   - a request body of a non-streaming endpoint (/ksql, /query,
//     /query-stream, /close-query) and the first line of /inserts-stream
//     must arrive within the body read timeout (WithBodyReadTimeout) and
//     hold at most maxBodyBytes: a slow body is a 408, a big one a 413.
//     The rows of /inserts-stream have no deadline: a stream may idle.
//   - a push query is back-pressured by a client that does not read: the
//     engine hands rows over a bounded channel and blocks when it is
//     full, so memory stays bounded (that channel plus the socket
//     buffers). A row write that stays blocked longer than the stalled
//     write timeout (WithStalledWriteTimeout) drops the client, which
//     closes the query.
//   - the engine caps concurrent push queries (ksql.max.push.queries).

// maxBodyBytes bounds request bodies of the non-streaming endpoints.
const maxBodyBytes = 32 << 20

// Error codes of the limits (HTTP status = code/100; ksqlDB has none of
// its own for these).
const (
	codeRequestTimeout  = 40800
	codePayloadTooLarge = 41300
)

// readBody reads the whole request body under the body read deadline.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, *api.ErrorMessage) {
	lift := s.bodyDeadline(w)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		return nil, s.bodyError(w, err)
	}
	lift()
	return body, nil
}

// bodyDeadline sets the read deadline of the request body and returns
// the function that lifts it once the body is read. The deadline must not
// outlive a good body: on HTTP/1.1 the server keeps reading the
// connection to notice a client going away, and a deadline there would
// cancel a running push query. After a failed read it stays: net/http
// tries to drain an unread body before answering, and the expired
// deadline makes that give up at once instead of waiting for the client.
func (s *Server) bodyDeadline(w http.ResponseWriter) func() {
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Now().Add(s.cfg.bodyReadTimeout)); err != nil {
		return func() {}
	}
	return func() { _ = rc.SetReadDeadline(time.Time{}) }
}

// bodyError is the answer to a body that could not be read; the
// connection is closed after it.
func (s *Server) bodyError(w http.ResponseWriter, err error) *api.ErrorMessage {
	w.Header().Set("Connection", "close")
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return &api.ErrorMessage{ErrorCode: codeRequestTimeout,
			Message: fmt.Sprintf("Request body not received within %v", s.cfg.bodyReadTimeout)}
	}
	if isLimitError(err) {
		return limitError(err)
	}
	return badRequest("Reading the request body failed: " + err.Error())
}

// isLimitError reports whether a body read failed on a limit: too many
// bytes or too slow.
func isLimitError(err error) bool {
	var tooBig *http.MaxBytesError
	return errors.As(err, &tooBig) || errors.Is(err, os.ErrDeadlineExceeded)
}

// limitError is the 413 or 408 for a limit error.
func limitError(err error) *api.ErrorMessage {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return &api.ErrorMessage{ErrorCode: codePayloadTooLarge,
			Message: fmt.Sprintf("Request body too large: the limit is %d bytes", tooBig.Limit)}
	}
	return &api.ErrorMessage{ErrorCode: codeRequestTimeout, Message: "Request body not received in time"}
}

// valueLimiter bounds the bytes read since the last reset, so that each
// JSON value of a streamed body (the arguments, then each row) holds at
// most max bytes plus the decoder's read-ahead.
type valueLimiter struct {
	r         io.Reader
	max, left int64
}

func (l *valueLimiter) reset() { l.left = l.max }

func (l *valueLimiter) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, &http.MaxBytesError{Limit: l.max}
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// stallGuard bounds how long one write to a streaming response may block:
// arm before each write, and the returned release when the response ends.
type stallGuard struct {
	rc      *http.ResponseController
	timeout time.Duration
	armed   bool
}

func (s *Server) newStallGuard(w http.ResponseWriter) *stallGuard {
	return &stallGuard{rc: http.NewResponseController(w), timeout: s.cfg.stalledWriteTimeout}
}

// arm gives the next write the stalled write timeout.
func (g *stallGuard) arm() {
	if g.timeout > 0 && g.rc.SetWriteDeadline(time.Now().Add(g.timeout)) == nil {
		g.armed = true
	}
}

// release lifts the deadline, so that a kept-alive connection's next
// request does not inherit it.
func (g *stallGuard) release() {
	if g.armed {
		_ = g.rc.SetWriteDeadline(time.Time{})
	}
}
