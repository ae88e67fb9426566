package state

import (
	"errors"

	"github.com/cockroachdb/pebble/v2"
)

// CorruptError is local state that cannot be decoded (an operator found a
// stored value it cannot read). The store partition is beyond repair in
// place: wipe it and restore it from its changelog.
type CorruptError struct {
	What string // what could not be read
}

func (e *CorruptError) Error() string { return "corrupt " + e.What }

// IsCorrupt reports whether err says local state is corrupt: a
// CorruptError, or Pebble's own checksum failures.
func IsCorrupt(err error) bool {
	var ce *CorruptError
	return errors.As(err, &ce) || errors.Is(err, pebble.ErrCorruption)
}
