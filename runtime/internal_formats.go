package runtime

import "github.com/sqlstream/sqlstream/planner"

// internalFormatsOfSources is what a command records (command.
// InternalFormats) when the queries it starts write their repartition
// topics and join store keys in the formats of their sources, as
// ksqlDB does (physical.Options.LegacyInternalJSON false). Commands
// recorded before carry nothing: their queries' internal topics hold
// JSON, and they keep writing and reading JSON after an upgrade.
const internalFormatsOfSources = "sources"

// legacyInternalJSON reports whether the queries c starts keep JSON
// internal topics.
func legacyInternalJSON(c *command) bool {
	return c.InternalFormats != internalFormatsOfSources
}

// storeFormatsOfQuery is what a command records (command.StoreFormats)
// when the queries it starts write their aggregate stores' values in the
// query's value format with accumulators named after their calls
// (physical.Options.LegacyStoreJSON false). Commands recorded before
// carry nothing: their stores hold JSON accumulators by position, and
// they keep them after an upgrade.
const storeFormatsOfQuery = "query"

// legacyStoreJSON reports whether the queries c starts keep JSON
// aggregate store values.
func legacyStoreJSON(c *command) bool { return c.StoreFormats != storeFormatsOfQuery }

// plannerFor is the planner that plans the query of cmd: the engine's, or
// for a command recorded before registry-keyed joins repartitioned every
// side, a copy that plans them as then (the engine lock is held, the copy
// shares the catalog).
func (e *Engine) plannerFor(cmd *command) *planner.Planner {
	if cmd == nil || !legacyInternalJSON(cmd) {
		return e.planner
	}
	p := *e.planner
	p.Defaults.LegacyJoinRepartition = true
	return &p
}
