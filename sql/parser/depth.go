package parser

import "github.com/sqlstream/sqlstream/sql/sqlerr"

// nest tracks the bracket depth as the lexer produces token t and
// rejects ( and [ brackets nested more than sqlerr.MaxDepth levels, at the
// first bracket past the limit, before anything else sees the text. It
// counts every opening bracket, matched or not, so no later pass that
// recurses once per bracket (the rewriter, TiDB's grammar) goes deeper.
func nest(depth *int, src string, t token) error {
	switch {
	case t.isPunct("(") || t.isPunct("["):
		if *depth++; *depth > sqlerr.MaxDepth {
			return tooDeep(src, t)
		}
	case t.isPunct(")") || t.isPunct("]"):
		*depth = max(*depth-1, 0)
	}
	return nil
}

// tooDeep is sqlerr.TooDeep at token t of src.
func tooDeep(src string, t token) error {
	e := sqlerr.TooDeep(t.P)
	e.Near = t.Raw
	e.SQL = src
	return e
}

// enter counts one more level of a recursive walk at token t: an error
// past sqlerr.MaxDepth, else a function that leaves the level.
func enter(depth *int, src string, t token) (func(), error) {
	if *depth >= sqlerr.MaxDepth {
		return nil, tooDeep(src, t)
	}
	*depth++
	return func() { *depth-- }, nil
}
