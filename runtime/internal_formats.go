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
