package runtime

import "github.com/sqlstream/sqlstream/planner"

// internalFormatsOfSources is what a command records (command.
// InternalFormats) when the queries it starts write their repartition
// topics and join store keys in the formats of their sources, as
// ksqlDB does (physical.Options.LegacyInternalJSON false). Commands
// recorded before carry nothing: their queries' internal topics hold
// JSON, and they keep writing and reading JSON after an upgrade.
const internalFormatsOfSources = "sources"

// internalFormatsFKReformat is what a command recorded next: the
// sources' formats, and a foreign-key join's right table (an n-way join
// step's right side) keyed in a registry format repartitioned into the
// join's key format (planner.Defaults.LegacyRegistryJoinSteps). Commands
// recorded with internalFormatsOfSources keep their joins' topologies.
const internalFormatsFKReformat = "sources/2"

// internalFormatsKsqlNumbers is what a command recorded next: as
// internalFormatsFKReformat, stream–stream join stores numbered as
// ksqlDB numbers them (physical.Options.LegacyJoinStoreNumbers false),
// and a stream–stream join of windowed streams keyed in a registry
// format repartitioning both sides (planner.Defaults.LegacyWindowedJoins
// false). Commands recorded before keep their stores' names and joins.
const internalFormatsKsqlNumbers = "sources/3"

// internalFormatsWindowedTables is what a command recorded next: as
// internalFormatsKsqlNumbers, and a join of windowed tables (or of a
// windowed table and a windowed stream) keyed in a registry format
// repartitioning every side (planner.Defaults.LegacyWindowedTableJoins
// false). Commands recorded with internalFormatsKsqlNumbers keep reading
// each side from its own topic.
const internalFormatsWindowedTables = "sources/4"

// internalFormatsCompactArgs is what a command records now: as
// internalFormatsWindowedTables, and a JSON GROUP BY repartition topic's
// arguments under compact names (physical.Options.LegacyRepartitionNames
// false). Commands recorded before keep the names their records carry.
const internalFormatsCompactArgs = "sources/5"

// internalFormatsNow is what a new command records.
const internalFormatsNow = internalFormatsCompactArgs

// legacyInternalJSON reports whether the queries c starts keep JSON
// internal topics.
func legacyInternalJSON(c *command) bool {
	switch c.InternalFormats {
	case internalFormatsOfSources, internalFormatsFKReformat, internalFormatsKsqlNumbers, internalFormatsWindowedTables, internalFormatsCompactArgs:
		return false
	}
	return true
}

// legacyJoinStoreNumbers reports whether the queries cmd starts number
// their stream–stream join stores as before ksqlDB's numbers (nil: a
// new statement, which does not).
func legacyJoinStoreNumbers(cmd *command) bool {
	return cmd != nil && cmd.InternalFormats != internalFormatsKsqlNumbers && cmd.InternalFormats != internalFormatsWindowedTables &&
		cmd.InternalFormats != internalFormatsCompactArgs
}

// legacyRepartitionNames reports whether the queries cmd starts write
// their JSON GROUP BY repartition topics' arguments under the names of
// before (nil: a new statement, which does not).
func legacyRepartitionNames(cmd *command) bool {
	return cmd != nil && cmd.InternalFormats != internalFormatsCompactArgs
}

// storeFormatsOfQuery is what a command records (command.StoreFormats)
// when the queries it starts write their aggregate stores' values in the
// query's value format with accumulators named after their calls
// (physical.Options.LegacyStoreJSON false). Commands recorded before
// carry nothing: their stores hold JSON accumulators by position, and
// they keep them after an upgrade.
const storeFormatsOfQuery = "query"

// storeFormatsKeys is what a command records (command.StoreFormats)
// when the queries it starts also write: storeFormatsOfQuery,
// and the aggregate stores' keys in the query's key format, the EMIT
// FINAL buffer's and a sliding window's raw rows in its value format,
// an as-of join's versioned store and buffer in its sides' formats, a
// foreign-key join's store keys in its tables' key formats, a table
// aggregation's input rows in its source's formats
// (physical.Options.LegacyStoreKeysJSON false). Commands recorded with
// storeFormatsOfQuery keep those JSON.
const storeFormatsKeys = "query/2"

// storeFormatsTimestamps is what a command records now: storeFormatsKeys,
// and the changelogs of the stores that keep a timestamp in front of
// their values (aggregate stores, EMIT FINAL buffers, sliding raw rows,
// join table stores) carry the serialized value alone with the
// timestamp as the record's, so a standard deserializer reads them
// (physical.Options.LegacyChangelogTimePrefix false). Commands recorded
// with an earlier level keep the timestamp in front of those changelog
// values, as their topics hold them.
const storeFormatsTimestamps = "query/3"

// legacyStoreJSON reports whether the queries c starts keep JSON
// aggregate store values.
func legacyStoreJSON(c *command) bool {
	switch c.StoreFormats {
	case storeFormatsOfQuery, storeFormatsKeys, storeFormatsTimestamps:
		return false
	}
	return true
}

// legacyStoreKeysJSON reports whether the queries c starts keep JSON
// aggregate store keys, EMIT FINAL buffers, sliding raw rows and as-of
// join stores.
func legacyStoreKeysJSON(c *command) bool {
	return c.StoreFormats != storeFormatsKeys && c.StoreFormats != storeFormatsTimestamps
}

// legacyChangelogTimePrefix reports whether the queries c starts keep the
// timestamp in front of their timestamped stores' changelog values.
func legacyChangelogTimePrefix(c *command) bool { return c.StoreFormats != storeFormatsTimestamps }

// plannerFor is the planner that plans the query of cmd: the engine's, or
// for a command recorded before registry-keyed joins repartitioned every
// side (or before FK joins reformatted a registry-keyed right table, or
// windowed joins, or joins of windowed tables, were repartitioned), a
// copy that plans them as then (the engine lock is held, the copy shares
// the catalog).
func (e *Engine) plannerFor(cmd *command) *planner.Planner {
	if cmd == nil || cmd.InternalFormats == internalFormatsNow || cmd.InternalFormats == internalFormatsWindowedTables {
		return e.planner // the two plan alike
	}
	p := *e.planner
	p.Defaults.LegacyWindowedTableJoins = true
	if cmd.InternalFormats == internalFormatsKsqlNumbers {
		return &p
	}
	p.Defaults.LegacyWindowedJoins = true
	p.Defaults.LegacyRegistryJoinSteps = cmd.InternalFormats != internalFormatsFKReformat
	p.Defaults.LegacyJoinRepartition = legacyInternalJSON(cmd)
	return &p
}
