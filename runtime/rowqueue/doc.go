// Package rowqueue is the way of a transient query's rows (push, pull,
// PRINT) to its client: a queue bounded in bytes (RowBytes, 1 MiB; a row
// bigger than that goes through alone), so a client that does not read
// slows its query instead of growing the server's memory; LIMIT; the
// end of the query (completed, failed, the final message); and the
// client going away, which ends the producer's wait.
//
//	runner ─► Queue.Row ─(waits while the queued rows pass RowBytes)─► rows
//	            │ false: LIMIT reached, or the client closed       │
//	Finish(err) / FinishWith(err, final) ─► ended                  ▼
//	                     client ◄── Next: rows, then io.EOF or the error
//	                                FinalMessage; Close (client gone)
package rowqueue
