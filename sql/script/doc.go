// Package script splits ksqlDB SQL text into statements without parsing
// it: semicolons end statements except inside quotes ('…', "…", `…`) and
// comments (-- … and /* … */). The server uses it to spot SELECT and PRINT
// sent to /ksql; the REPL uses it to know when a statement is complete.
//
//	"CREATE …;  SELECT ';' FROM s;  SHOW"  ──Split──►  ["CREATE …;", "SELECT ';' FROM s;"]  rest "SHOW"
package script
