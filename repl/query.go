package repl

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/sqlstream/sqlstream/api"
)

// runQuery runs a SELECT or PRINT through POST /query and prints its
// output until it ends or the user interrupts it (Ctrl-C closes the
// request; the server then stops the query).
func (s *session) runQuery(ctx context.Context, stmt string, isPrint bool) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := s.onInterrupt(cancel)
	defer stop()
	body, err := s.client.query(ctx, s.request(stmt))
	if err != nil && ctx.Err() != nil {
		s.con.println("Query terminated") // interrupted before the first row
		return
	}
	if err != nil {
		s.printFailure(err)
		return
	}
	defer body.Close()
	if s.interactive {
		s.con.println("Press CTRL-C to interrupt")
	}
	if isPrint {
		s.streamPrint(ctx, body)
		s.con.println("Topic printing ceased")
		return
	}
	s.streamRows(ctx, body)
	s.con.println("Query terminated")
}

// onInterrupt calls cancel on Ctrl-C until the returned stop function is
// called. Interactive sessions (and tests) have a session-wide interrupt
// channel; a piped session catches SIGINT only while a query runs, so
// that Ctrl-C still ends the program otherwise.
func (s *session) onInterrupt(cancel context.CancelFunc) (stop func()) {
	interrupt, stopSignals := s.interrupt, func() {}
	if interrupt == nil {
		interrupt, stopSignals = notifyInterrupts()
	} else {
		drain(interrupt) // a Ctrl-C from before the query started
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-interrupt:
			cancel()
		case <-done:
		}
	}()
	return func() {
		close(done)
		stopSignals()
	}
}

// notifyInterrupts turns SIGINT into receives on the returned channel
// until stop is called.
func notifyInterrupts() (<-chan struct{}, func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	out := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-sigs:
				select {
				case out <- struct{}{}:
				default:
				}
			case <-done:
				return
			}
		}
	}()
	return out, func() {
		signal.Stop(sigs)
		close(done)
	}
}

func drain(ch <-chan struct{}) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// streamRows prints the StreamedRow elements of a /query response: the
// header, each row, a final message, an error.
func (s *session) streamRows(ctx context.Context, body io.Reader) {
	dec := json.NewDecoder(body)
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // the opening '['
		s.readFailed(ctx, err)
		return
	}
	for dec.More() {
		var row api.StreamedRow
		if err := dec.Decode(&row); err != nil {
			s.readFailed(ctx, err)
			return
		}
		s.printStreamedRow(row)
	}
}

func (s *session) printStreamedRow(row api.StreamedRow) {
	switch {
	case row.ErrorMessage != nil:
		s.con.printError(row.ErrorMessage.Message)
	case row.FinalMessage != "":
		s.con.println(row.FinalMessage)
	case s.con.jsonOutput && row.Header != nil:
		s.con.printJSON(row.Header)
	case s.con.jsonOutput && row.Row != nil:
		s.con.printJSON(row.Row)
	case row.Header != nil:
		s.con.println(s.con.rowHeader(schemaColumnNames(row.Header.Schema)))
	case row.Row != nil:
		s.con.println(s.con.rowLine(rowCells(row.Row)))
	}
}

// rowCells renders a row's values; a tombstone shows <TOMBSTONE> for its
// null (non-key) columns.
func rowCells(r *api.StreamedData) []string {
	cells := make([]string, len(r.Columns))
	for i, raw := range r.Columns {
		cells[i] = cellText(raw)
		if r.Tombstone && (raw == nil || string(raw) == "null") {
			cells[i] = "<TOMBSTONE>"
		}
	}
	return cells
}

// streamPrint copies PRINT output lines; a JSON error line is shown as an
// error.
func (s *session) streamPrint(ctx context.Context, body io.Reader) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, `{"@type"`) {
			var em api.ErrorMessage
			if json.Unmarshal([]byte(line), &em) == nil && em.Message != "" {
				s.con.printError(em.Message)
				continue
			}
		}
		s.con.println(line)
	}
	if err := sc.Err(); err != nil {
		s.readFailed(ctx, err)
	}
}

// readFailed reports a broken response unless the user interrupted it.
func (s *session) readFailed(ctx context.Context, err error) {
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return
	}
	s.con.printError("Error reading the query results: " + err.Error())
}
