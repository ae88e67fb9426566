// Package qttmode is the engine's mode for ksqlDB's query translation
// tests (QTT), which the QTT driver (qtt/driver) sets through
// runtime.WithQTT. It is an internal package, so only this module can
// name a Mode: the mode is no part of the engine's public API.
package qttmode

// Mode is what a conformance test needs of an engine that a server never
// does. The zero Mode is a server's behaviour.
type Mode struct {
	// Naming names persistent queries as ksqlDB's test runner does, so
	// that the internal topic names its tests assert match: query ids end
	// with the count of persistent queries before them (from 0; ksqlDB's
	// server, and sqlstream's without this mode, use the command's
	// sequence number in the command topic), and application ids, hence
	// internal topics, carry ksqlDB's `_confluent-ksql-` prefix. Only for
	// engines without a command log: ids do not survive a replay.
	Naming bool
	// CreateMissingTopics makes CREATE STREAM/TABLE create a missing
	// topic (one partition) instead of failing: a test's input topics
	// exist implicitly.
	CreateMissingTopics bool
}
