package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// dataDirLock keeps a second sqlstream process off a data directory: two
// brokers or engines writing the same files would corrupt them.
type dataDirLock struct{ f *os.File }

// lockDataDir takes an exclusive lock on <dir>/LOCK, creating dir.
func lockDataDir(dir string) (*dataDirLock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating data directory: %w", err)
	}
	path := filepath.Join(dir, "LOCK")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening data directory lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("data directory %s is in use by another sqlstream process", dir)
		}
		return nil, fmt.Errorf("locking data directory %s: %w", dir, err)
	}
	return &dataDirLock{f: f}, nil
}

// release drops the lock; the LOCK file stays.
func (l *dataDirLock) release() error {
	return l.f.Close()
}
