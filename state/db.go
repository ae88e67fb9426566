package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// DB is the one Pebble database of a server's data directory. All its
// methods are safe for concurrent use; the Stores it hands out are not.
type DB struct {
	dir  string
	cfg  dbConfig
	wopt *pebble.WriteOptions

	// pmu is held shared by every use of pdb (use) and exclusively by
	// Reopen, which swaps it (reopen.go). pdb is nil after a reopen that
	// closed the old Pebble DB but could not open it again.
	pmu sync.RWMutex
	pdb *pebble.DB
	// runlock is pmu.RUnlock, the release use hands out, made once.
	runlock func()
	// genDurable holds, per generation closed by a reopen, the number of
	// the last write durable when it closed; its length is the current
	// generation (reopen.go). Guarded by pmu.
	genDurable []uint64
	writes     atomic.Uint64 // successful writes so far (wrote)
	durable    atomic.Uint64 // the last of them known durable
	// abandoned: a reopen could not close the failed Pebble DB (guarded
	// by d.mu); it cannot be opened again in this process.
	abandoned bool

	mu     sync.Mutex // guards parts, next, closed
	parts  map[StoreID]*partition
	next   prefix
	closed bool
	// failed is the first write the disk refused (write_failure.go).
	failed atomic.Pointer[WriteError]
}

// partition is the DB's record of one store partition.
type partition struct {
	id     StoreID
	prefix prefix
	keys   atomic.Int64 // committed key count
	owner  *pebbleStore // the open Store or Restorer, nil when none
	// filter knows which keys were ever written, nil when unknown (a
	// partition with keys found on open, until its first claim builds it,
	// or one too large for it). The owner uses it under its lock.
	filter *keyFilter
	// segment is the interval of the partition's segmented layout, 0 for
	// the plain one (window_segments.go): set once, by useSegments.
	segment atomic.Int64
}

// Open opens (creating if needed) the DB in dir.
func Open(dir string, opts ...Option) (*DB, error) {
	cfg := defaultDBConfig()
	for _, o := range opts {
		o.applyDB(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return open(dir, cfg)
}

// OpenMem opens a DB on a fresh in-memory file system (vfs.NewMem), for
// tests; a WithFS option overrides it.
func OpenMem(opts ...Option) (*DB, error) {
	return Open("state", append([]Option{WithFS(vfs.NewMem())}, opts...)...)
}

func open(dir string, cfg dbConfig) (*DB, error) {
	d := &DB{dir: dir, cfg: cfg, wopt: &pebble.WriteOptions{Sync: cfg.sync}, parts: map[StoreID]*partition{}}
	d.runlock = d.pmu.RUnlock
	pdb, err := d.openPebble()
	if err != nil {
		return nil, err
	}
	d.pdb = pdb
	if err := d.loadRegistry(); err != nil {
		return nil, errors.Join(err, pdb.Close())
	}
	return d, nil
}

// openPebble opens the Pebble DB of d's directory. Its logger and event
// listener turn what Pebble's own goroutines fail to write into d's
// failure (write_failure.go); a Fatalf of Pebble's while opening (or
// reopening) is an error of the open, not a panic of the server.
func (d *DB) openPebble() (pdb *pebble.DB, err error) {
	defer func() {
		if r := recover(); r != nil {
			pdb, err = nil, fmt.Errorf("state: open %s: %w", d.dir, recovered(r))
		}
	}()
	cache := pebble.NewCache(d.cfg.cacheBytes)
	defer cache.Unref()
	po := &pebble.Options{FS: vfs.OnDiskFull(d.cfg.fs, d.diskFull), Cache: cache, Logger: fatalLogger{d.cfg.logger, d}, FormatMajorVersion: pebble.FormatNewest,
		MemTableSize: uint64(d.cfg.memTable), EventListener: d.eventListener()}
	for i := range po.Levels {
		po.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	if pdb, err = pebble.Open(d.dir, po); err != nil {
		return nil, fmt.Errorf("state: open %s: %w", d.dir, err)
	}
	return pdb, nil
}

// loadRegistry reads the next prefix and every registered store partition
// with its key count. d.pdb is d's alone (Open, or Reopen holding pmu);
// a partition known already keeps its struct (its owner holds it) and
// takes the key count found.
func (d *DB) loadRegistry() error {
	v, err := d.getValue(nextKey())
	if err != nil {
		return err
	}
	if len(v) == 4 {
		d.next = max(d.next, prefix(binary.BigEndian.Uint32(v)))
	}
	it, err := d.pdb.NewIter(&pebble.IterOptions{LowerBound: registryPrefix(), UpperBound: keySuccessor(registryPrefix())})
	if err != nil {
		return err
	}
	defer it.Close()
	for it.First(); it.Valid(); it.Next() {
		if err := d.loadPartition(it.Key(), it.Value()); err != nil {
			return err
		}
	}
	return it.Error()
}

func (d *DB) loadPartition(k, v []byte) error {
	id, err := parseRegistryKey(k)
	if err != nil || len(v) != 4 {
		return errors.Join(err, fmt.Errorf("state: corrupt registry entry %x", k))
	}
	pre := prefix(binary.BigEndian.Uint32(v))
	n, err := d.getInt64(pre.meta(countTag))
	if err != nil {
		return err
	}
	seg, err := d.getInt64(pre.meta(segmentTag))
	if err != nil {
		return err
	}
	if p, ok := d.parts[id]; ok && p.prefix == pre {
		p.keys.Store(n) // its filter still holds every key written: a superset
		p.segment.Store(seg)
		return nil
	}
	p := &partition{id: id, prefix: pre}
	p.keys.Store(n)
	p.segment.Store(seg)
	if n == 0 {
		p.filter = newKeyFilter()
	}
	d.parts[id] = p
	return nil
}

// Close closes the DB, discarding the unflushed writes of stores still open
// (their later calls fail). Call it once the goroutines using the DB are
// done: Pebble panics on use after close.
func (d *DB) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return errClosed
	}
	d.closed = true
	var owners []*pebbleStore
	for _, p := range d.parts {
		if p.owner != nil {
			owners = append(owners, p.owner)
		}
	}
	d.mu.Unlock()
	for _, o := range owners {
		o.abort()
	}
	return d.closePebble()
}

var errClosed = errors.New("state: DB is closed")

// partition returns (registering it if new) the store partition of id.
func (d *DB) partition(id StoreID) (*partition, error) {
	if err := id.validate(); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, errClosed
	}
	if p, ok := d.parts[id]; ok {
		return p, nil
	}
	return d.register(id)
}

// register hands out the next prefix and persists it; d.mu is held.
// Prefixes are never reused, not even after Wipe.
func (d *DB) register(id StoreID) (*partition, error) {
	p := &partition{id: id, prefix: d.next, filter: newKeyFilter()}
	err := d.write("register "+id.String(), true, func(pdb *pebble.DB) error {
		b := pdb.NewBatch()
		defer b.Close()
		_ = b.Set(nextKey(), binary.BigEndian.AppendUint32(nil, uint32(d.next+1)), nil)
		_ = b.Set(registryKey(id), binary.BigEndian.AppendUint32(nil, uint32(p.prefix)), nil)
		return b.Commit(pebble.Sync)
	})
	if err != nil {
		return nil, fmt.Errorf("state: register %s: %w", id, err)
	}
	d.next++
	d.parts[id] = p
	return p, nil
}

// known returns the partition of id if registered, without registering.
func (d *DB) known(id StoreID) (*partition, bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, false, errClosed
	}
	p, ok := d.parts[id]
	return p, ok, nil
}

// claim makes s the single owner of the partition of id.
func (d *DB) claim(id StoreID) (*pebbleStore, error) {
	p, err := d.partition(id)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	if p.owner != nil {
		d.mu.Unlock()
		return nil, fmt.Errorf("state: store %s is already open (one task owns it at a time)", id)
	}
	p.owner = &pebbleStore{db: d, part: p}
	d.mu.Unlock()
	if p.filter == nil && p.keys.Load() <= filterMaxKeys {
		p.filter = d.buildFilter(p) // the new owner's, before it is handed out
	}
	return p.owner, nil
}

// buildFilter scans p's keys into a new filter; nil when the scan fails
// (reads then go to Pebble).
func (d *DB) buildFilter(p *partition) *keyFilter {
	pdb, done, err := d.use()
	if err != nil {
		return nil
	}
	defer done()
	it, err := pdb.NewIter(&pebble.IterOptions{LowerBound: p.prefix.data(), UpperBound: p.prefix.dataEnd()})
	if err != nil {
		return nil
	}
	f := newKeyFilter()
	ok := true
	for it.First(); it.Valid() && ok; it.Next() {
		ok = f.add(it.Key())
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil || !ok {
		return nil
	}
	return f
}

// release ends s's ownership.
func (d *DB) release(s *pebbleStore) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if s.part.owner == s {
		s.part.owner = nil
	}
}

// owner returns the open owner of id, if any.
func (d *DB) owner(id StoreID) *pebbleStore {
	d.mu.Lock()
	defer d.mu.Unlock()
	if p, ok := d.parts[id]; ok {
		return p.owner
	}
	return nil
}

// Stores lists the store partitions the DB holds (registered by Store,
// Restorer or Checkpoint and not wiped since), sorted: what a server
// finds on startup, e.g. to wipe those no task of it owns any more.
func (d *DB) Stores() []StoreID {
	d.mu.Lock()
	defer d.mu.Unlock()
	ids := make([]StoreID, 0, len(d.parts))
	for id := range d.parts {
		ids = append(ids, id)
	}
	sortIDs(ids)
	return ids
}

// getValue reads a committed value, nil when absent; d.pdb is held (or
// d's alone).
func (d *DB) getValue(k []byte) ([]byte, error) {
	return getFrom(d.pdb, k)
}

// readValue is getValue holding the Pebble DB.
func (d *DB) readValue(k []byte) ([]byte, error) {
	pdb, done, err := d.use()
	if err != nil {
		return nil, err
	}
	defer done()
	return getFrom(pdb, k)
}

func (d *DB) getInt64(k []byte) (int64, error) {
	v, err := d.getValue(k)
	if err != nil || v == nil {
		return 0, err
	}
	return decodeInt64(v)
}

type getter interface {
	Get(key []byte) ([]byte, io.Closer, error)
}

// getFrom copies the value of k out of r; nil, nil when absent.
func getFrom(r getter, k []byte) ([]byte, error) {
	v, c, err := r.Get(k)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := append(make([]byte, 0, len(v)), v...)
	return out, c.Close()
}

func sortIDs(ids []StoreID) {
	sort.Slice(ids, func(i, j int) bool {
		a, b := ids[i], ids[j]
		if a.App != b.App {
			return a.App < b.App
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Partition < b.Partition
	})
}
