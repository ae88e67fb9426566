package runtime

// internalFormatsOfSources is what a command records (command.
// InternalFormats) when the queries it starts write their repartition
// topics and join store keys in the formats of their sources, as
// ksqlDB does (physical.Options.LegacyInternalJSON false). Commands
// recorded before carry nothing: their queries' internal topics hold
// JSON, and they keep writing and reading JSON after an upgrade.
const internalFormatsOfSources = "sources"

// legacyInternalJSON reports whether the queries c starts keep JSON
// internal topics.
func (c *command) legacyInternalJSON() bool {
	return c.InternalFormats != internalFormatsOfSources
}
