// Package stmterr shapes the answer a failed statement gets, in ksqlDB's
// words and error bodies: a statement_error with the statement's text
// (masked where it holds secrets) and the entities the request already
// produced, or a body passed on as it is.
//
//	error from parse, check, plan or run
//	   │
//	   ├─ *connectors.Error ─────────► its Kafka Connect body as it is
//	   ├─ ASSERT failed (40001?) ────► the generic error body as it is
//	   ├─ *api.ErrorMessage ─────────► statement_error, same code and message
//	   ├─ *sqlerr.Error ─────────────► statement_error, the caret rendering
//	   └─ anything else ─────────────► statement_error 40001, its text
//
// Wrap does that for every statement; MaskedParse for a statement that
// does not parse (a masked one keeps only position and reason, never the
// source line); OnlyStatement refuses /query's request that holds other
// than one statement; the constants and ForwardedPull are ksqlDB's fixed
// refusals. The package sees errors and text, never the engine.
package stmterr
