//go:build race

package exec

// raceEnabled: the race detector is on (sync.Pool then drops a share
// of what is put back, so pooled paths allocate).
const raceEnabled = true
