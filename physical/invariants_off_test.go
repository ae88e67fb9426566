//go:build !invariants

package physical_test

// invariantsBuild: see invariants_on_test.go.
const invariantsBuild = false
