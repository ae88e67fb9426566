package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
)

// versionSuffix is the valid-from time (8 bytes) after the record key.
const versionSuffix = 8

// observedKey holds a versioned store's observed stream time. Version keys
// are at least versionSuffix bytes long, so a one-byte key never collides.
var observedKey = []byte{0}

// Version value kinds (the first byte of a stored version).
const (
	versionTombstone byte = 0
	versionValue     byte = 1
)

// DefaultHistoryRetention is a versioned store's history retention unless
// told otherwise: one day, in milliseconds.
const DefaultHistoryRetention int64 = 24 * 60 * 60 * 1000

// minPurgeInterval bounds how often Put purges: not more often than every
// second of observed time, however short the retention.
const minPurgeInterval int64 = 1000

// VersionKey is the store (and changelog) key of one version:
//
//	<key> <valid-from, 8 bytes big-endian>
//
// A key's versions sort together by the time they became valid.
func VersionKey(key []byte, validFrom int64) []byte {
	k := make([]byte, 0, len(key)+versionSuffix)
	return binary.BigEndian.AppendUint64(append(k, key...), uint64(validFrom))
}

// SplitVersionKey is the inverse of VersionKey.
func SplitVersionKey(k []byte) (key []byte, validFrom int64, err error) {
	if len(k) < versionSuffix {
		return nil, 0, fmt.Errorf("state: version key %x is shorter than %d bytes", k, versionSuffix)
	}
	n := len(k) - versionSuffix
	return k[:n], int64(binary.BigEndian.Uint64(k[n:])), nil
}

// VersionedStore keeps the history of every key over a Store, Kafka
// Streams' versioned key-value store (KIP-889): a version is valid from its
// time until the next version of its key; a delete is a tombstone version.
// Values are stored as a kind byte (tombstone or value) then the value.
// The observed stream time (the latest version time put) is kept under
// its own key, so it is changelogged and restored with the versions.
//
// Reads older than observed − retention see only a key's latest version
// (when valid by then): the history before that is purged. Like a Store it
// belongs to one task goroutine.
type VersionedStore struct {
	s         Store
	retention int64
	observed  int64
	purged    int64 // observed time of the last purge
	dropped   int64
}

// VersionedStore opens id as a versioned store with the given history
// retention (ms) over the Store stack.
func (d *DB) VersionedStore(id StoreID, retention int64, opts ...StoreOption) (*VersionedStore, error) {
	s, _, err := d.openStack(id, opts)
	if err != nil {
		return nil, err
	}
	v, err := NewVersionedStore(s, retention)
	if err != nil {
		return nil, errors.Join(err, s.Close())
	}
	return v, nil
}

// NewVersionedStore views a Store (e.g. one from a runtime's store
// provider) as a versioned store, continuing from the observed stream
// time it holds.
func NewVersionedStore(s Store, retention int64) (*VersionedStore, error) {
	if retention < 0 {
		return nil, fmt.Errorf("state: history retention %d must be >= 0", retention)
	}
	v := &VersionedStore{s: s, retention: retention, observed: -1}
	b, err := s.Get(observedKey)
	if err != nil {
		return nil, err
	}
	if len(b) == 8 {
		v.observed = int64(binary.BigEndian.Uint64(b))
	}
	v.purged = v.observed
	return v, nil
}

// Observed is the latest version time put (-1: none).
func (v *VersionedStore) Observed() int64 { return v.observed }

// Dropped counts Puts dropped because they were older than the history.
func (v *VersionedStore) Dropped() int64 { return v.dropped }

// Put records that key has value from validFrom on (nil: a tombstone
// version, the key deleted from then). A put older than observed −
// retention is dropped (reported false), as Kafka Streams drops it.
// Crossing half the retention of observed time purges old history.
func (v *VersionedStore) Put(key []byte, validFrom int64, value []byte) (bool, error) {
	if validFrom < 0 {
		return false, fmt.Errorf("state: version time %d must be >= 0", validFrom)
	}
	if v.observed >= 0 && validFrom < v.observed-v.retention {
		v.dropped++
		return false, nil
	}
	kind := versionValue
	if value == nil {
		kind = versionTombstone
	}
	if err := v.s.Put(VersionKey(key, validFrom), append([]byte{kind}, value...)); err != nil {
		return false, err
	}
	if validFrom <= v.observed {
		return true, nil
	}
	v.observed = validFrom
	if err := v.s.Put(observedKey, binary.BigEndian.AppendUint64(nil, uint64(validFrom))); err != nil {
		return false, err
	}
	if v.observed-v.purged >= max(v.retention/2, minPurgeInterval) {
		return true, v.Purge()
	}
	return true, nil
}

// Version is what GetAsOf finds: a value and the time it became valid.
type Version struct {
	Value     []byte
	ValidFrom int64
}

// GetAsOf returns the version of key valid at asOf: the latest one with
// valid-from <= asOf, or nil when there is none, it is a tombstone, or
// asOf is older than the history kept (observed − retention) and the
// latest version is not valid yet at asOf.
func (v *VersionedStore) GetAsOf(key []byte, asOf int64) (*Version, error) {
	if asOf < 0 {
		return nil, nil
	}
	var found, latest *Version
	var tomb bool
	err := v.s.Range(VersionKey(key, 0), keySuccessor(key), func(k, val []byte) bool {
		if len(k) != len(key)+versionSuffix || !bytes.HasPrefix(k, key) || len(val) == 0 {
			return true // a longer key that shares key's bytes
		}
		_, ts, _ := SplitVersionKey(k)
		latest = &Version{ValidFrom: ts}
		if ts <= asOf {
			found, tomb = &Version{Value: bytes.Clone(val[1:]), ValidFrom: ts}, val[0] == versionTombstone
		}
		return true
	})
	if err != nil || found == nil || tomb {
		return nil, err
	}
	if asOf < v.observed-v.retention && latest.ValidFrom != found.ValidFrom {
		return nil, nil // history older than the retention
	}
	return found, nil
}

// Purge deletes the versions no read can see any more: for each key, the
// versions before its latest one valid at observed − retention, and that
// one too when it is a tombstone. The deletes go to the changelog as
// tombstones (unlike WindowStore.Purge): the changelog is compacted only,
// since a key's latest version must survive however old it is.
func (v *VersionedStore) Purge() error {
	v.purged = v.observed
	cutoff := v.observed - v.retention
	if cutoff <= 0 {
		return nil
	}
	drop, err := v.expired(cutoff)
	if err != nil {
		return err
	}
	for _, k := range drop {
		if err := v.s.Put(k, nil); err != nil {
			return err
		}
	}
	return nil
}

// storedVersion is a version seen by a purge scan.
type storedVersion struct {
	storeKey  []byte
	validFrom int64
	tombstone bool
}

// expired returns the store keys of the versions Purge deletes.
func (v *VersionedStore) expired(cutoff int64) ([][]byte, error) {
	byKey := map[string][]storedVersion{}
	err := v.s.Range(nil, nil, func(k, val []byte) bool {
		key, ts, err := SplitVersionKey(k)
		if err != nil || ts > cutoff || len(val) == 0 {
			return true
		}
		byKey[string(key)] = append(byKey[string(key)], storedVersion{storeKey: bytes.Clone(k), validFrom: ts, tombstone: val[0] == versionTombstone})
		return true
	})
	var drop [][]byte
	for _, key := range slices.Sorted(maps.Keys(byKey)) { // in key order: a deterministic changelog
		vs := byKey[key]
		last := len(vs) - 1 // the version valid at cutoff; the others are hidden
		for i, sv := range vs {
			if i < last || sv.tombstone {
				drop = append(drop, sv.storeKey)
			}
		}
	}
	return drop, err
}

// History calls fn for every version of key, oldest first (tombstones
// with a nil value), including history a read would hide.
func (v *VersionedStore) History(key []byte, fn func(validFrom int64, value []byte) bool) error {
	return v.s.Range(VersionKey(key, 0), VersionKey(key, math.MaxInt64), func(k, val []byte) bool {
		if len(k) != len(key)+versionSuffix || !bytes.HasPrefix(k, key) || len(val) == 0 {
			return true
		}
		_, ts, _ := SplitVersionKey(k)
		if val[0] == versionTombstone {
			return fn(ts, nil)
		}
		return fn(ts, val[1:])
	})
}

// Flush is Store.Flush.
func (v *VersionedStore) Flush() error { return v.s.Flush() }

// Close is Store.Close.
func (v *VersionedStore) Close() error { return v.s.Close() }
