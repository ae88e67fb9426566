// Package script splits ksqlDB SQL text into statements without parsing
// it: semicolons end statements except inside quotes ('…', "…", `…`) and
// comments (-- … and /* … */). It is the project's one splitter: the
// server uses it to spot SELECT and PRINT sent to /ksql, the REPL to know
// when a statement is complete, the runtime to run a request's statements
// one at a time (so DEFINE affects the ones after it) and qtt to read
// test-runner SQL files. A statement's text starts after its leading
// blanks and comments, its offset in the script is kept for error
// positions, and blank or comment-only statements are dropped.
//
//	"CREATE …;  SELECT ';' FROM s;  SHOW"  ──Split──►  ["CREATE …;", "SELECT ';' FROM s;"]  rest "SHOW"
//	                                       ──All────►  ["CREATE …;", "SELECT ';' FROM s;", "SHOW"]
package script
