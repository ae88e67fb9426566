//go:build invariants

package physical_test

// invariantsBuild: the state package's self-checks are on (go test -tags
// invariants); they read and allocate, so allocation pins do not hold.
const invariantsBuild = true
