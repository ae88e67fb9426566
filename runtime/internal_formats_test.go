package runtime

import "testing"

// TestPlannerForLegacyCommands: a command recorded before internal topics
// followed the sources' formats is planned with the joins of then; a new
// or newly recorded one with the engine's planner.
func TestPlannerForLegacyCommands(t *testing.T) {
	e, err := NewTestEngine(nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := e.plannerFor(nil); p != e.planner {
		t.Error("a new statement is not planned by the engine's planner")
	}
	if p := e.plannerFor(&command{InternalFormats: internalFormatsOfSources}); p != e.planner {
		t.Error("a command of this release is not planned by the engine's planner")
	}
	p := e.plannerFor(&command{})
	if !p.Defaults.LegacyJoinRepartition || e.planner.Defaults.LegacyJoinRepartition || p.Catalog != e.planner.Catalog {
		t.Errorf("an old command's planner: legacy %v (engine's %v), same catalog %v",
			p.Defaults.LegacyJoinRepartition, e.planner.Defaults.LegacyJoinRepartition, p.Catalog == e.planner.Catalog)
	}
}
