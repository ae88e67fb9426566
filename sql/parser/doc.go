// Package parser turns ksqlDB SQL text into sql/ast statements.
//
// Statements other than SELECT (DDL, INSERT … VALUES, SHOW, DESCRIBE, …)
// are parsed by a small recursive-descent parser over our own tokens. A
// SELECT is split into clauses by the same parser; ksqlDB-only clauses
// (WINDOW, WITHIN/GRACE, FULL JOIN, PARTITION BY, EMIT, LIMIT) are lifted
// into typed fields, and the SELECT core goes to the TiDB (MySQL) parser
// after a token-level rewrite:
//
//	user text ──► lexer ──► tokens (line:col each)
//	                          │
//	             ┌────────────┴─────────────┐
//	             ▼                          ▼
//	   statement parser               SELECT splitter
//	   (CREATE, INSERT, SHOW,          │ lifts WINDOW, WITHIN, GRACE,
//	    DESCRIBE, DROP, PRINT, …)      │ FULL→LEFT, PARTITION BY→ORDER BY,
//	             │                     │ EMIT, LIMIT
//	             │                     ▼
//	             │                rewriter: identifiers backticked,
//	             │                a->b, x[i], CAST, ARRAY[…], MAP(…),
//	             │                STRUCT(…), lambdas, f(*), DECIMAL '…'
//	             │                → internal calls (__ksql_*)
//	             │                     │ pieces: text + source token
//	             │                     ▼
//	             │                TiDB parser (PIPES_AS_CONCAT,
//	             │                NO_BACKSLASH_ESCAPES)
//	             │                     │ TiDB AST, offsets in rewritten text
//	             │                     ▼
//	             │                converter: undoes the rewrites, maps
//	             │                offsets back to the user's tokens
//	             ▼                     ▼
//	           ast.Statement / ast.Expr, positions in the user's text
//
// What the tree looks like for the less obvious cases:
//
//   - names follow ksqlDB's case rule: unquoted → upper case, `backticked`
//     and "double-quoted" keep their case; function names are always upper
//     case;
//   - a time unit passed to a function (TIMESTAMPADD(MINUTES, 5, ts)) and
//     a lambda parameter used in its body are *ast.ColumnRef;
//   - -5 is a negative literal, NOT (a LIKE b) is a LIKE with Not set, and
//     GROUP BY (a, b) is the same as GROUP BY a, b;
//   - COUNT(*) is a Call with Star; x->* is a SelectItem with StructStar.
//
// Custom types: CREATE TYPE makes a name usable by later statements of
// the same text; WithTypes resolves names created by earlier calls. Column
// and CAST types in the tree are always expanded.
//
// TiDB sees placeholders for numbers and LIKE escapes and never decides a
// literal's value: literals always come from our own tokens. A panic inside
// TiDB is turned into a syntax error.
//
// Hostile input: brackets nested more than sqlerr.MaxDepth levels are
// refused by the lexer before anything else sees the text; the rewriter,
// the converter and the type parser each count their own recursion
// against the same limit. A chain of postfix operators (x[1][2]->f) counts
// one level per operator, and the rewriter builds it in one pass. The
// left operand of a binary operator stays at its operator's level, so a
// flat chain such as 1+1+… is one level; its links are bounded by
// sqlerr.MaxChain instead (counted by the converter over the whole
// tree; the rewriter refuses more than a multiple of it in operators at
// one level before TiDB sees the text). The trees
// returned are therefore at most MaxDepth levels plus MaxChain links deep,
// which is what bounds the later recursive walks (ast.Map/Walk, the
// formatter, sql/expr's compiler, which counts both as the converter
// does). WithContext lets the lexer, rewriter and converter stop when the
// request's context is done, so a client that leaves stops its parse.
// ksqlDB's reserved words (ast.ReservedWords) are refused as unquoted
// names.
//
// Lexical forms follow ksqlDB's lexer: a digit-led word is a name when it
// is longer than the number it starts with (1abc, 1e3x; 123 and 1e3 are
// numbers); unquoted names may also hold Unicode letters (ksqlDB's are
// A-Z only), never symbols such as €; types take ksqlDB's postfix ARRAY (INT ARRAY is ARRAY<INT>)
// and ignored parameters (VARCHAR(10) is STRING), and SHOW takes EXTENDED
// only for STREAMS, TABLES, TOPICS and QUERIES.
//
// testdata/grammar is the rule-by-rule table of ksqlDB's grammar
// (SqlBase.g4): each parser rule and lexical form with a statement the
// grammar accepts and one it refuses, the forms sqlstream accepts beyond
// it (>) and those it refuses (!: a bare EMIT after a source), each
// with its reason (TestGrammar); testdata/sqlbase
// lists every rule, labelled alternative and token of SqlBase.g4 with the
// block covering it and that block's status (TestGrammarChecklist), so a
// later release is diffed against it. PAUSE and RESUME are reserved, as
// in ksqlDB. GROUP BY () and PARTITION BY () pass the grammar and are
// refused with the words of ksqlDB's AST builder.
//
// Every error is a *sqlerr.Error pointing into the user's original text.
// `${var}` references are replaced by the caller with Substitute before
// parsing.
package parser
