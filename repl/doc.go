// Package repl is sqlstream's interactive shell, a work-alike of the ksql
// CLI. It is always an HTTP client of a server (in-process mode passes the
// local server's URL), and renders results the way the ksql CLI does.
//
//	stdin ──lineReader──► statement buffer ──script.Split──► one statement
//	   (readline on a TTY,      (continuation prompt              │
//	    bufio when piped)        until ';')                       ▼
//	        SET/UNSET/DEFINE/UNDEFINE/SHOW VARIABLES ──► session state (client side)
//	        SELECT / PRINT ──► POST /query ──► header, rows, final message
//	        anything else  ──► POST /ksql  ──► entity tables / DESCRIBE layout
//	                                              │
//	                            console ◄─────────┘  (stdout; errors on stderr)
//
// The ksql CLI's own commands (commands.go: HELP, VERSION, HISTORY,
// SERVER [URL], CLEAR, OUTPUT, SPOOL, RUN SCRIPT, EXIT, SET CLI …) are
// matched on a line of their own before it joins the statement buffer:
// no semicolon needed, any case.
//
// Properties set with SET are kept in the session and sent with every
// request, as the ksql CLI does; session variables likewise.
// Ctrl-C while a query streams closes that request (the server then ends
// the query); Ctrl-C at the prompt clears the line; Ctrl-D or EXIT quits.
package repl
