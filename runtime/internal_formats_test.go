package runtime

import "testing"

// TestPlannerForLegacyCommands: a command recorded before internal topics
// followed the sources' formats is planned with the joins of then, one
// recorded before FK joins reformatted a registry-keyed right table with
// the FK joins of then; a new or newly recorded one with the engine's
// planner.
func TestPlannerForLegacyCommands(t *testing.T) {
	e, err := NewTestEngine(nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := e.plannerFor(nil); p != e.planner {
		t.Error("a new statement is not planned by the engine's planner")
	}
	if p := e.plannerFor(&command{InternalFormats: internalFormatsNow}); p != e.planner {
		t.Error("a command of this release is not planned by the engine's planner")
	}
	if p := e.plannerFor(&command{InternalFormats: internalFormatsWindowedTables}); p != e.planner {
		t.Error("a command of sources/4 (which plans as sources/5) is not planned by the engine's planner")
	}
	if p := e.plannerFor(&command{InternalFormats: internalFormatsKsqlNumbers}); p == e.planner || !p.Defaults.LegacyWindowedTableJoins ||
		p.Defaults.LegacyWindowedJoins || p.Defaults.LegacyRegistryJoinSteps || p.Defaults.LegacyJoinRepartition {
		t.Error("a command of sources/3 is not planned with the joins of then: windowed tables read from their own topics, the rest as now")
	}
	if !legacyJoinStoreNumbers(&command{InternalFormats: internalFormatsFKReformat}) || legacyJoinStoreNumbers(&command{InternalFormats: internalFormatsKsqlNumbers}) ||
		legacyJoinStoreNumbers(&command{InternalFormats: internalFormatsNow}) || legacyJoinStoreNumbers(nil) {
		t.Error("only commands recorded before sources/3 keep the old join store numbers")
	}
	for _, f := range []string{"", internalFormatsOfSources, internalFormatsKsqlNumbers, internalFormatsWindowedTables} {
		if !legacyRepartitionNames(&command{InternalFormats: f}) {
			t.Errorf("a command of %q writes its repartition arguments under compact names", f)
		}
	}
	if legacyRepartitionNames(&command{InternalFormats: internalFormatsNow}) || legacyRepartitionNames(nil) || internalFormatsNow != internalFormatsCompactArgs {
		t.Error("a new command, or one of this release, keeps the long repartition argument names")
	}
	if legacyInternalJSON(&command{InternalFormats: internalFormatsCompactArgs}) || legacyJoinStoreNumbers(&command{InternalFormats: internalFormatsCompactArgs}) {
		t.Error("a command of sources/5 keeps an older level's JSON internal topics or join store numbers")
	}
	for _, c := range []struct {
		formats    string
		repart, fk bool
	}{{"", true, true}, {internalFormatsOfSources, false, true}, {internalFormatsFKReformat, false, false}} {
		p := e.plannerFor(&command{InternalFormats: c.formats})
		if !p.Defaults.LegacyWindowedJoins || !p.Defaults.LegacyWindowedTableJoins {
			t.Errorf("command of %q: windowed registry joins planned as now", c.formats)
		}
		if p == e.planner || p.Defaults.LegacyJoinRepartition != c.repart || p.Defaults.LegacyRegistryJoinSteps != c.fk || p.Catalog != e.planner.Catalog {
			t.Errorf("command of %q: legacy repartition %v, FK %v, want %v, %v; same catalog %v",
				c.formats, p.Defaults.LegacyJoinRepartition, p.Defaults.LegacyRegistryJoinSteps, c.repart, c.fk, p.Catalog == e.planner.Catalog)
		}
	}
	if e.planner.Defaults.LegacyJoinRepartition || e.planner.Defaults.LegacyRegistryJoinSteps || e.planner.Defaults.LegacyWindowedJoins || e.planner.Defaults.LegacyWindowedTableJoins {
		t.Error("the engine's planner plans legacy joins")
	}
}

// TestStoreFormatLevels: each recorded storeFormats level keeps the store
// layouts its release wrote; only the current one ("query/3", what a new
// command records) puts timestamped stores' timestamps in their changelog
// records.
func TestStoreFormatLevels(t *testing.T) {
	for _, c := range []struct {
		level                    string
		values, keys, timePrefix bool
	}{
		{"", true, true, true},
		{storeFormatsOfQuery, false, true, true},
		{storeFormatsKeys, false, false, true},
		{storeFormatsTimestamps, false, false, false},
	} {
		cmd := &command{StoreFormats: c.level}
		if legacyStoreJSON(cmd) != c.values || legacyStoreKeysJSON(cmd) != c.keys || legacyChangelogTimePrefix(cmd) != c.timePrefix {
			t.Errorf("storeFormats %q: legacy values %v, keys %v, changelog time prefix %v; want %v, %v, %v", c.level,
				legacyStoreJSON(cmd), legacyStoreKeysJSON(cmd), legacyChangelogTimePrefix(cmd), c.values, c.keys, c.timePrefix)
		}
	}
}
