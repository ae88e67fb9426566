package exec

import "testing"

// TestPauseLifecycle: Pause and Resume ask, the loop carries out; a
// request that makes no sense in the current state (Pause while paused,
// Resume while processing, the loop's settle after a Resume) changes
// nothing, and every move is one of pauseMoves.
func TestPauseLifecycle(t *testing.T) {
	var c pauseCtl
	steps := []struct {
		what string
		tos  []pauseState
		ok   bool
		want pauseState
	}{
		{"Resume while processing", []pauseState{resuming}, false, processing},
		{"Pause", []pauseState{pausing}, true, pausing},
		{"Pause again", []pauseState{pausing}, false, pausing},
		{"loop: took effect", []pauseState{paused}, true, paused},
		{"Pause while paused", []pauseState{pausing}, false, paused},
		{"Resume", []pauseState{resuming}, true, resuming},
		{"loop settles after the Resume", []pauseState{paused}, false, resuming},
		{"Pause before the loop resumed", []pauseState{pausing}, true, pausing},
		{"Resume before the pause took effect", []pauseState{resuming}, true, resuming},
		{"loop: fetching again", []pauseState{processing}, true, processing},
	}
	for _, s := range steps {
		if ok := c.move(s.tos...); ok != s.ok || c.load() != s.want {
			t.Fatalf("%s: moved %v, now %s; want %v, %s", s.what, ok, c.load(), s.ok, s.want)
		}
	}
	for from, tos := range pauseMoves {
		for _, to := range tos {
			if from == to {
				t.Errorf("%s → itself listed as a move", from)
			}
		}
	}
}
