//go:build invariants

package state

// invariants enables expensive self-checks (go test -tags invariants).
const invariants = true
